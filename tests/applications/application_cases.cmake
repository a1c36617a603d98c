# dealii_gpu_application_case_mask() (cmake/application_cases.cmake): the
# default list (unnamed entries, every application), CI's named entries and
# a mix give the expected bit masks. Run with
#   cmake -DSOURCE_DIR=<repository> -P application_cases.cmake
cmake_minimum_required(VERSION 3.20)
include(${SOURCE_DIR}/cmake/application_cases.cmake)

function(expect target cases expected)
  dealii_gpu_application_case_mask(${target} "${cases}" mask)
  if(NOT mask EQUAL expected)
    message(FATAL_ERROR "${target} with '${cases}': mask ${mask}, "
      "expected ${expected}")
  endif()
  message(STATUS "${target} with '${cases}': ${mask}")
endfunction()

set(all "2:1;2:2;2:3;2:4;3:1;3:2;3:3;3:4")
expect(poisson "${all}" 255)
expect(helmholtz "${all}" 255)
set(ci "helmholtz:2:2;poisson:2:3;elasticity:3:2")
expect(helmholtz "${ci}" 2)
expect(poisson "${ci}" 4)
expect(elasticity "${ci}" 32)
expect(helmholtz "3:3;poisson:2:1" 64)
expect(poisson "3:3;poisson:2:1" 65)
expect(elasticity "poisson:2:1" 0)
