# dealii_gpu_setup_sources(<files>...): files that hold kernels end in .cu.
# With the CUDA backend they are compiled by nvcc; without it they are
# compiled as plain C++ (host backend only).
function(dealii_gpu_setup_sources)
  if(NOT DEAL_II_GPU_HAVE_CUDA)
    foreach(_f ${ARGN})
      if(_f MATCHES "\\.cu$")
        set_source_files_properties(${_f} PROPERTIES LANGUAGE CXX)
      endif()
    endforeach()
  endif()
endfunction()

# dealii_gpu_setup_target(<target>): deal.II's flags for C++ files, the
# library for everything. Use for executables of your own that link
# dealii-gpu::dealii-gpu (tests use deal.II's macros instead).
function(dealii_gpu_setup_target _target)
  get_target_property(_srcs ${_target} SOURCES)
  dealii_gpu_setup_sources(${_srcs})
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    deal_ii_setup_target(${_target} DEBUG)
  else()
    deal_ii_setup_target(${_target} RELEASE)
  endif()
  # deal.II's linker flags set a RUNPATH of their own; add the directory of
  # libdealii-gpu so that the program finds it without LD_LIBRARY_PATH.
  if(TARGET dealii-gpu::dealii-gpu)
    set_property(TARGET ${_target} APPEND PROPERTY BUILD_RPATH
      "$<TARGET_FILE_DIR:dealii-gpu::dealii-gpu>")
    set_property(TARGET ${_target} APPEND PROPERTY INSTALL_RPATH
      "$<TARGET_FILE_DIR:dealii-gpu::dealii-gpu>")
  endif()
endfunction()
