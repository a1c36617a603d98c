# The (dimension, degree) pairs an application compiles, from a list of
# [application:]dim:degree entries (DEAL_II_GPU_APPLICATION_CASES). Plain
# CMake, so that tests/applications/application_cases.cmake runs it in
# script mode.

# @p out_var = the bit mask of @p target's pairs in @p cases: bit
# 4 (dim - 2) + degree - 1 (application_main.h).
function(dealii_gpu_application_case_mask target cases out_var)
  set(_mask 0)
  foreach(_case IN LISTS cases)
    if(NOT _case MATCHES "^(([a-z_]+):)?([23]):([1-4])$")
      message(FATAL_ERROR "DEAL_II_GPU_APPLICATION_CASES: '${_case}' is not "
        "[application:]dim:degree with dim 2 or 3 and degree 1 to 4")
    endif()
    # Quoted: an entry without a name leaves an empty, not an unset, name.
    set(_name "${CMAKE_MATCH_2}")
    if("${_name}" STREQUAL "" OR "${_name}" STREQUAL "${target}")
      math(EXPR _mask
        "${_mask} | (1 << ((${CMAKE_MATCH_3} - 2) * 4 + ${CMAKE_MATCH_4} - 1))")
    endif()
  endforeach()
  set(${out_var} ${_mask} PARENT_SCOPE)
endfunction()
