# nnhal_demo_test: runs nnhal-demo (-DDEMO=<path>) twice with a fresh cache directory
# (-DWORK=<dir>): the first run prepares and saves, the second prepares from the cache
# (-DCACHE=ON when the cache has its digest). Both must end with "demo: done".
cmake_minimum_required(VERSION 3.22)
file(REMOVE_RECURSE ${WORK})
foreach(pass first second)
  execute_process(COMMAND ${DEMO} --cache-dir ${WORK} --repeat 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 300)
  message("--- ${pass} run (exit ${rc}):\n${out}${err}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "demo: done")
    message(FATAL_ERROR "nnhal-demo failed on the ${pass} run")
  endif()
  if(NOT out MATCHES "top-1 class: .*all agree")
    message(FATAL_ERROR "the float32 and quantized MobileNets disagree on the top class")
  endif()
endforeach()
if(CACHE AND NOT out MATCHES "prepared from the compilation cache in .*faster")
  message(FATAL_ERROR "the second run did not prepare from the compilation cache")
endif()
