# cmake -DGZIP=gzip -DIN=file.gz -DOUT=file -P TridentGunzip.cmake
# Decompresses through a temporary file so an interrupted build never leaves a truncated matrix
# that a later build would take as up to date.
execute_process(COMMAND "${GZIP}" -dc "${IN}" OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "cannot decompress ${IN}: ${rc}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
