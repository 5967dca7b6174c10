# Build-time script: turns migrations/NNNN_name.sql into a C++ source holding them in order,
# so the server binary carries its schema and never reads SQL files at run time.
# Inputs: MIGRATIONS_DIR, OUTPUT and FUNCTION (the accessor's name; EmbeddedMigrations when
# unset). migrations/ holds the migrations; migrations/postgresql/ only the PostgreSQL files
# for a genuine schema difference (usually none: server/store/migrations.cc respells the rest).
file(GLOB sql_files "${MIGRATIONS_DIR}/*.sql")
set(by_name "")
foreach(f ${sql_files})
  get_filename_component(name ${f} NAME)
  list(APPEND by_name "${name}|${f}")
endforeach()
list(SORT by_name)
set(sql_files "")
foreach(entry ${by_name})
  string(REGEX REPLACE "^[^|]*\\|" "" f "${entry}")
  list(APPEND sql_files ${f})
endforeach()
set(body "")
foreach(f ${sql_files})
  get_filename_component(base ${f} NAME_WE)
  if(NOT base MATCHES "^([0-9]+)_(.+)$")
    message(FATAL_ERROR "migration file name must be NNNN_name.sql: ${f}")
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  file(READ ${f} sql)
  if(sql MATCHES "\\)capplan_sql\"")
    message(FATAL_ERROR "${f} contains the raw-string terminator")
  endif()
  string(APPEND body "    {${version}, \"${name}\", R\"capplan_sql(${sql})capplan_sql\"},\n")
endforeach()
if(NOT FUNCTION)
  set(FUNCTION EmbeddedMigrations)
endif()
file(WRITE "${OUTPUT}.tmp"
"// Generated from ${MIGRATIONS_DIR}/*.sql by cmake/embed_migrations.cmake. Do not edit.
#include \"server/store/migrations.h\"

namespace capplan::store {

const std::vector<Migration>& ${FUNCTION}() {
  static const std::vector<Migration> kMigrations = {
${body}  };
  return kMigrations;
}

}  // namespace capplan::store
")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
