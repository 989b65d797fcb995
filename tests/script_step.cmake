# step(<what> <command>...) for the ctest scripts that cmake -P runs: runs the command; if
# it fails, the script fails with its output, else it reports "<STEP_PREFIX>: <what>: ok"
# and leaves the output in step_output.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${STEP_PREFIX}: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${STEP_PREFIX}: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
