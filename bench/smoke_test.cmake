# Runs one benchmark program on tiny sizes and judges what it printed (cmake -P), so that a
# change that breaks a benchmark fails the tests here instead of costing a GPU run.
#   -DPROGRAM=path -DARGS="a;b;..." -DCSV=file -DROWS=N -DROW_REGEX=re [-DMIN_LINES=N]
# Passes when the program exits 0, prints at least ROWS lines matching ROW_REGEX, prints no
# "nan" or "inf" (every figure was measured), and writes CSV with a header and at least ROWS
# data lines.
file(REMOVE "${CSV}")
execute_process(COMMAND "${PROGRAM}" ${ARGS} --csv "${CSV}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
string(REGEX MATCHALL "${ROW_REGEX}" rows "${out}")
list(LENGTH rows nrows)
if(nrows LESS ROWS)
  message(FATAL_ERROR "${nrows} lines match '${ROW_REGEX}', expected at least ${ROWS}")
endif()
if(NOT EXISTS "${CSV}")
  message(FATAL_ERROR "no CSV written to ${CSV}")
endif()
file(READ "${CSV}" csv_text)
string(TOLOWER "${out}${csv_text}" lower)
if(lower MATCHES "[ (,=-](nan|inf)([^a-z]|$)")
  message(FATAL_ERROR "a figure is not a number: '${CMAKE_MATCH_0}'")
endif()
file(STRINGS "${CSV}" lines)
list(LENGTH lines nlines)
math(EXPR ndata "${nlines} - 1")
if(ndata LESS ROWS)
  message(FATAL_ERROR "${CSV}: ${ndata} data lines, expected at least ${ROWS}")
endif()
