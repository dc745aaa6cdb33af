# quiver_add_tests(<target> LABELS <label> [FILTER <gtest filter>] [ENVIRONMENT <VAR=value>...]
#                  [COST <n>] [FIXTURES_REQUIRED <fixture>])
#
# Registers a GoogleTest binary with CTest. Two ways, chosen by QUIVER_TEST_SHARDS:
#   0 (the default, the Release tree): one CTest test per test case (gtest_discover_tests), so a
#     failure names its test and `ctest -R` picks single cases.
#   N > 0 (the sanitizer trees): N CTest tests per binary, `<target>/shard_<k>`, each running a
#     gtest shard (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX). A sanitizer's process start-up and
#     a binary's static set-up are paid N times instead of once per test case; --output-on-failure
#     still prints the failing case's own output.
# COST orders the tests (CTest starts the costliest first, so a long test does not start last
# and finish alone); with shards, each shard gets it.
# With QUIVER_UNITY (the sanitizer trees) the binary is unity-built: its test files compile as a
# few large units (about a fifth of the per-file compile time here), so helpers in the
# anonymous namespaces of one binary's files must not share names.
function(quiver_add_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "LABELS;FILTER;COST;FIXTURES_REQUIRED" "ENVIRONMENT")
  if(QUIVER_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON)
  endif()
  if(NOT arg_LABELS)
    message(FATAL_ERROR "quiver_add_tests(${target}): LABELS is required")
  endif()
  set(env ${arg_ENVIRONMENT})
  if(QUIVER_TEST_SHARDS GREATER 0)
    if(arg_FILTER)
      list(APPEND env "GTEST_FILTER=${arg_FILTER}")
    endif()
    set(shards ${QUIVER_TEST_SHARDS})
    math(EXPR last "${shards} - 1")
    # A label distinguishes the registrations of one binary under several filters.
    string(MAKE_C_IDENTIFIER "${arg_LABELS}" suffix)
    foreach(k RANGE ${last})
      set(name "${target}/${suffix}/shard_${k}")
      add_test(NAME ${name} COMMAND ${target})
      set_tests_properties(${name} PROPERTIES LABELS "${arg_LABELS}"
        ENVIRONMENT "${env};GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${k}")
      if(arg_COST)
        set_tests_properties(${name} PROPERTIES COST ${arg_COST})
      endif()
      if(arg_FIXTURES_REQUIRED)
        set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${arg_FIXTURES_REQUIRED})
      endif()
    endforeach()
    return()
  endif()
  set(props LABELS "${arg_LABELS}")
  if(env)
    # gtest_discover_tests flattens a list-valued property into the property list, so only one
    # ENVIRONMENT entry can be passed this way.
    list(LENGTH env n)
    if(n GREATER 1)
      message(FATAL_ERROR "quiver_add_tests(${target}): one ENVIRONMENT entry at most")
    endif()
    list(APPEND props ENVIRONMENT "${env}")
  endif()
  if(arg_COST)
    list(APPEND props COST ${arg_COST})
  endif()
  if(arg_FIXTURES_REQUIRED)
    list(APPEND props FIXTURES_REQUIRED ${arg_FIXTURES_REQUIRED})
  endif()
  if(arg_FILTER)
    gtest_discover_tests(${target} TEST_FILTER "${arg_FILTER}" DISCOVERY_TIMEOUT 60
      PROPERTIES ${props})
  else()
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES ${props})
  endif()
endfunction()
