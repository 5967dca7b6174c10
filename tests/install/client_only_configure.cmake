# install.client_only_configure: a CAPPLAN_CLIENT_ONLY configure succeeds with the server's
# and the tests' packages made unfindable (CMAKE_DISABLE_FIND_PACKAGE_*, which turns any
# REQUIRED find_package of them into an error), as on a machine that lacks them.
# Run with cmake -P; SOURCE_DIR, BINARY_DIR, GENERATOR and CXX come in as -D definitions.
file(REMOVE_RECURSE "${BINARY_DIR}")
set(disabled)
foreach(package SQLiteCpp SQLite3 prometheus-cpp GTest benchmark)
  list(APPEND disabled -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
          -DCMAKE_CXX_COMPILER=${CXX} -DCAPPLAN_CLIENT_ONLY=ON ${disabled}
  COMMAND_ERROR_IS_FATAL ANY)
