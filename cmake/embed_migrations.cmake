# Build-time script: turns migrations/NNNN_name.sql into a C++ source holding them in order,
# so the server binary carries its schema and never reads SQL files at run time.
# Inputs: MIGRATIONS_DIR, OUTPUT.
file(GLOB sql_files "${MIGRATIONS_DIR}/*.sql")
list(SORT sql_files)
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
file(WRITE "${OUTPUT}.tmp"
"// Generated from migrations/*.sql by cmake/embed_migrations.cmake. Do not edit.
#include \"server/store/migrations.h\"

namespace capplan::store {

const std::vector<Migration>& EmbeddedMigrations() {
  static const std::vector<Migration> kMigrations = {
${body}  };
  return kMigrations;
}

}  // namespace capplan::store
")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
