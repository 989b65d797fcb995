# nnhal_cts_shard_test: nnhal-cts --shard (-DCTS_TOOL=<path>, -DCTS=<corpus dir>,
# -DWORK=<scratch dir>). Shards 0/3, 1/3 and 2/3 run disjoint sets of models whose union
# is the unsharded run, each model in the shard of its place in run order; bad K/N values
# are usage errors (exit code 2, one line naming the option).
cmake_minimum_required(VERSION 3.22)

set(failures 0)
function(fail message)
  message("FAIL: ${message}")
  math(EXPR f "${failures} + 1")
  set(failures ${f} PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${WORK})
# The runs read a copy of V1_0's add and mul files and of one file between them in run
# order whose models the filter leaves out (the shards count filtered models only):
# loading every file would only make each run (four of them, under the sanitizers too)
# slower.
file(REMOVE_RECURSE ${WORK}/corpus)
file(GLOB picked ${CTS}/V1_0/add*.json ${CTS}/V1_0/avg_pool_float_1.json ${CTS}/V1_0/mul*.json)
file(COPY ${picked} DESTINATION ${WORK}/corpus)
# The model names of one run, in run order.
function(names_of out)
  set(report ${WORK}/report.json)
  execute_process(COMMAND ${CTS_TOOL} --filter "^(add|mul)" --no-variants --jobs 2 --report ${report} ${ARGN}
                          ${WORK}/corpus RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 300)
  if(NOT rc EQUAL 0)
    fail("nnhal-cts ${ARGN}: exit code ${rc}")
  endif()
  file(READ ${report} doc)
  string(JSON n LENGTH "${doc}" models)
  set(list "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${doc}" models ${i} name)
      list(APPEND list "${name}")
    endforeach()
  endif()
  set(${out} "${list}" PARENT_SCOPE)
  set(failures ${failures} PARENT_SCOPE)
endfunction()

names_of(all)
list(LENGTH all total)
if(total LESS 6)
  fail("expected at least 6 add/mul models in ${CTS}/V1_0's add*/mul* files, got ${total}")
endif()
foreach(k 0 1 2)
  names_of(part --shard ${k}/3)
  set(expected "")
  set(i 0)
  foreach(name IN LISTS all)
    math(EXPR r "${i} % 3")
    if(r EQUAL k)
      list(APPEND expected "${name}")
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
  if(NOT "${part}" STREQUAL "${expected}")
    fail("--shard ${k}/3 ran [${part}], expected [${expected}]")
  endif()
endforeach()

foreach(bad 3/3 1/0 a/3 1 /3 1/ 0/3/1 -1/3 99999999999999999999/3)
  execute_process(COMMAND ${CTS_TOOL} --shard ${bad} ${CTS}/V1_0 RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err
                  TIMEOUT 60)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "bad --shard '")
    fail("--shard ${bad}: exit code ${rc}, stderr '${err}'")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} failure(s)")
endif()
message("nnhal-cts --shard: ${total} models, 3 shards: ok")
