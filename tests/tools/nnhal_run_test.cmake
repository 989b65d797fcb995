# nnhal_run_test: runs nnhal-run (-DRUN=<path>) on corpus models (-DCTS=<corpus dir>) and on
# bad input, checking exit codes and messages. -DWORK=<scratch dir>, -DCACHE=ON when the
# compilation cache has its digest (OpenSSL).
cmake_minimum_required(VERSION 3.22)

set(failures 0)
# run(<name> <expected exit code> <regex stdout must match or ""> <regex stderr must match or ""> args...)
function(run name code out_re err_re)
  execute_process(COMMAND ${RUN} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  set(ok TRUE)
  if(NOT rc STREQUAL "${code}")
    set(ok FALSE)
    message("[${name}] exit code ${rc}, expected ${code}")
  endif()
  if(out_re AND NOT out MATCHES "${out_re}")
    set(ok FALSE)
    message("[${name}] stdout does not match '${out_re}'")
  endif()
  if(err_re)
    if(NOT err MATCHES "${err_re}")
      set(ok FALSE)
      message("[${name}] stderr does not match '${err_re}'")
    endif()
    # Bad files and arguments: exactly one line of error.
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines n)
    if(NOT n EQUAL 1)
      set(ok FALSE)
      message("[${name}] stderr has ${n} lines, expected 1")
    endif()
  endif()
  if(NOT ok)
    message("--- ${RUN} ${ARGN}\n--- stdout:\n${out}\n--- stderr:\n${err}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  else()
    message("[${name}] ok")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Arguments and files.
run(no_args 2 "" "^nnhal-run: no model file given")
run(missing_file 2 "" "^nnhal-run: ${WORK}/nope.json: no such file" ${WORK}/nope.json)
file(WRITE ${WORK}/truncated.json "{\"format\": \"nnhal-cts-json/1\", \"models\": [")
run(truncated_json 2 "" "^nnhal-run: .*truncated.json: " ${WORK}/truncated.json)
file(WRITE ${WORK}/wrong_format.json "{\"format\": \"something-else\", \"models\": []}")
run(wrong_format 2 "" "^nnhal-run: .*wrong_format.json" ${WORK}/wrong_format.json)
run(bad_repeat 2 "" "^nnhal-run: --repeat: 'x' is not an integer" ${WORK}/truncated.json --repeat x)
run(bad_mode 2 "" "^nnhal-run: --mode: 'warp' is not sync, async, fenced or burst" ${WORK}/truncated.json --mode warp)
run(bad_priority 2 "" "^nnhal-run: --priority: 'urgent' is not low, medium or high" ${WORK}/truncated.json --priority urgent)
run(unknown_option 2 "" "^nnhal-run: unknown option '--fast'" ${WORK}/truncated.json --fast)
run(missing_value 2 "" "^nnhal-run: --deadline-ms: missing value" ${WORK}/truncated.json --deadline-ms)
run(help 0 "usage: nnhal-run MODEL.json" "" --help)

if(NOT EXISTS ${CTS}/V1_0/add.json)
  message("corpus not found at ${CTS}: skipping the model runs")
else()
  # A corpus file with two models: both pass, every style option accepted.
  run(add_pass 0 "model add:.*expected outputs: PASS.*latency over 3 runs.*2 models: 2 passed, 0 failed" ""
      ${CTS}/V1_0/add.json --repeat 3 --priority high --threads 2 --deadline-ms 10000 --timing --dot ${WORK}/add.dot)
  file(READ ${WORK}/add.dot dot)
  if(NOT dot MATCHES "digraph \"add\".*op0 \\[shape=box.*ADD")
    message("[dot] ${WORK}/add.dot is not the expected graph:\n${dot}")
    math(EXPR failures "${failures} + 1")
  endif()
  run(one_model 0 "model add_all_inputs_as_internal:.*PASS" "" ${CTS}/V1_0/add.json --model add_all_inputs_as_internal)
  run(no_such_model 2 "" "no model named 'nope'" ${CTS}/V1_0/add.json --model nope)
  # Every execution style gives the expected outputs.
  foreach(mode sync async fenced burst)
    run(mode_${mode} 0 "${mode} executions:.*expected outputs: PASS|expected outputs: PASS.*${mode} executions:" ""
        ${CTS}/V1_0/add.json --model add --mode ${mode} --repeat 3)
  endforeach()
  # A wrong expected value fails the check (exit 1).
  file(READ ${CTS}/V1_0/add.json add)
  string(REPLACE "\"data\":[4.0,6.0]" "\"data\":[4.0,7.0]" wrong "${add}")
  if(wrong STREQUAL add)
    message("[wrong_expected] could not edit add.json's expected output")
    math(EXPR failures "${failures} + 1")
  else()
    file(WRITE ${WORK}/add_wrong.json "${wrong}")
    run(wrong_expected 1 "expected outputs: FAIL" "" ${WORK}/add_wrong.json --model add)
  endif()
  # Validation tests must fail to prepare: that is a pass.
  run(expect_failure 0 "PASS: failed as expected" "" ${CTS}/V1_2/depthwise_conv2d_invalid_filter_dims.json
      --model depthwise_conv2d_invalid_filter_dims_nhwc)
  # The compilation cache: the second run prepares from it.
  if(CACHE)
    run(cache_first 0 "saved to the compilation cache" "" ${CTS}/V1_0/conv_float_large.json --cache-dir ${WORK}/cache)
    run(cache_second 0 "prepared from the compilation cache.*expected outputs: PASS" ""
        ${CTS}/V1_0/conv_float_large.json --cache-dir ${WORK}/cache)
  endif()
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "nnhal_run_test: ${failures} case(s) failed")
endif()
