# Installs dealii-gpu from BUILD_DIR into a temporary prefix, then configures,
# builds and runs a small project that finds it with find_package(dealii-gpu)
# and links dealii-gpu::dealii-gpu. Run with cmake -P (see tests/CMakeLists.txt).
set(prefix ${WORK_DIR}/install)
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${WORK_DIR}/consumer;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_PREFIX_PATH=${prefix}"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/consumer"
    "${WORK_DIR}/consumer/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed: ${step}\n${out}")
  endif()
endforeach()
message(STATUS "consumer output: ${out}")
if(NOT out MATCHES "sum of squares 385: yes")
  message(FATAL_ERROR "consumer printed the wrong result: ${out}")
endif()
