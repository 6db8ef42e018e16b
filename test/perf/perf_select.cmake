# Read by ctest itself (a TEST_INCLUDE_FILES entry of test/perf): adds the performance tests only
# when this ctest run asks for them, so that a plain `ctest` runs the normal suite alone while
# `ctest -L performance` (or -L/--label-regex with any regex matching "performance") runs them.
# ctest gives include files no variable with its arguments; on Linux they are its
# /proc/self/cmdline (NUL-separated: file(STRINGS) splits there). TRIDENT_PERF_TESTS=1 in the
# environment adds them whatever the arguments (e.g. `TRIDENT_PERF_TESTS=1 ctest -R perf_aa`).
set(_trident_perf_want FALSE)
if("$ENV{TRIDENT_PERF_TESTS}" STREQUAL "1")
  set(_trident_perf_want TRUE)
elseif(EXISTS /proc/self/cmdline)
  file(STRINGS /proc/self/cmdline _trident_perf_args)
  set(_trident_perf_next FALSE)
  foreach(_a IN LISTS _trident_perf_args)
    set(_re "")
    if(_trident_perf_next)
      set(_re "${_a}")
      set(_trident_perf_next FALSE)
    elseif(_a STREQUAL "-L" OR _a STREQUAL "--label-regex")
      set(_trident_perf_next TRUE)
    elseif(_a MATCHES "^--label-regex=(.+)$")
      set(_re "${CMAKE_MATCH_1}")
    endif()
    if(NOT _re STREQUAL "" AND "performance" MATCHES "${_re}")
      set(_trident_perf_want TRUE)
    endif()
  endforeach()
endif()
if(_trident_perf_want)
  include("@TRIDENT_PERF_TESTS_FILE@")
endif()
