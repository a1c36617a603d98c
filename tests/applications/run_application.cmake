# Runs an application on its parameter file and compares the table it
# prints (the lines that start with '|', run with "Print timings = false")
# with the expected output by numdiff. Fails where the program fails or the
# table differs.
#   cmake -DPROGRAM=... -DPRM=... -DEXPECTED=... -DNUMDIFF=... -P this
execute_process(
  COMMAND ${PROGRAM} ${PRM}
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _err
  RESULT_VARIABLE _rc)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${_rc}:\n${_err}")
endif()
string(REGEX MATCHALL "\n\\|[^\n]*" _rows "${_out}")
string(REPLACE ";" "" _rows "${_rows}")
string(REGEX REPLACE "^\n" "" _rows "${_rows}")
file(WRITE table.output "${_rows}\n")
execute_process(
  COMMAND ${NUMDIFF} -q -a 1e-10 -r 1e-5 -s " \t\n|" table.output ${EXPECTED}
  OUTPUT_VARIABLE _diff
  RESULT_VARIABLE _diff_rc)
if(NOT _diff_rc EQUAL 0)
  message(FATAL_ERROR "the table differs from ${EXPECTED}:\n${_rows}\n${_diff}")
endif()
