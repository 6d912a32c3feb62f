# Runs a program and judges both its exit status and its output (cmake -P), where CTest's
# PASS_REGULAR_EXPRESSION alone would ignore the status.
#   -DPROGRAM=path -DARGS="a;b;..." -DRC=expected exit status -DREGEX=what the output must match
execute_process(COMMAND "${PROGRAM}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not match '${REGEX}'")
endif()
