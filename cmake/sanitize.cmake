# CAPPLAN_SANITIZE and CAPPLAN_FUZZ: the sanitizer (and libFuzzer) builds, `make test-sanitize`
# (address,undefined) and `make test-tsan` (thread).
#
# The flags go on every target this project compiles. That is exactly "capplan's own code":
# every third-party library (gRPC, protobuf, Abseil, SQLiteCpp, GoogleTest) is a prebuilt,
# GCC-built Debian package that is only linked, never compiled here. clang + libstdc++ objects
# link against those fine; their code is simply not instrumented.
if(CAPPLAN_SANITIZE)
  set(capplan_sanitize_flags -fsanitize=${CAPPLAN_SANITIZE} -fno-omit-frame-pointer)
  if(CAPPLAN_SANITIZE MATCHES "undefined")
    # UBSan only prints and carries on by default; a finding must fail the test that hit it.
    list(APPEND capplan_sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${capplan_sanitize_flags})
  add_link_options(-fsanitize=${CAPPLAN_SANITIZE})
  message(STATUS "capplan: sanitizers ${CAPPLAN_SANITIZE}")
  if(CAPPLAN_SANITIZE MATCHES "thread")
    # ThreadSanitizer (make test-tsan). Debian's Abseil is not built with TSan, so its Mutex
    # is invisible to it; this library (tests/sanitize/tsan_absl_mutex.cc) annotates every
    # absl::Mutex and absl::CondVar lock, capplan's and gRPC's alike. It must come before
    # Abseil in each program's link, hence link_libraries here, ahead of every target: the
    # library aborts at load when it is not the one called.
    add_library(capplan_tsan_absl SHARED ${PROJECT_SOURCE_DIR}/tests/sanitize/tsan_absl_mutex.cc)
    target_link_libraries(capplan_tsan_absl PRIVATE absl::synchronization ${CMAKE_DL_LIBS})
    link_libraries($<BUILD_INTERFACE:capplan_tsan_absl>)
  endif()
endif()

if(CAPPLAN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CAPPLAN_FUZZ needs clang (libFuzzer); configure with CXX=clang++-14")
  endif()
  # Coverage instrumentation for the fuzzer in everything compiled here; only the fuzz
  # executables link libFuzzer's main (-fsanitize=fuzzer in capplan_fuzz_target). Needs a
  # sanitizer runtime (which carries the coverage callbacks) for the other executables' link.
  if(NOT CAPPLAN_SANITIZE)
    message(FATAL_ERROR "CAPPLAN_FUZZ needs CAPPLAN_SANITIZE (e.g. address,undefined)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
