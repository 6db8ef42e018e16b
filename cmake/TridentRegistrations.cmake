# trident_add_registrations(<target> KERNELS <fn>... BACKENDS <fn>...): generates
# BuiltinRegistrations.cpp (from src/trident/backend/BuiltinRegistrations.cpp.in) into the current
# binary folder and adds it to <target>. Each <fn> is the registerXxx() function a local kernel's or
# backend's own file defines; the registries call the generated registerBuiltinLocalKernels() and
# registerBuiltinBackends() on their first use. That call is what keeps each listed file in a static
# link: a static registrar object would be referred to by nothing, and the linker would drop its
# file from the archive, in the build tree and in a project linking the installed package alike.
set(_trident_registrations_in "${CMAKE_CURRENT_LIST_DIR}/../src/trident/backend/BuiltinRegistrations.cpp.in")
function(trident_add_registrations target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "KERNELS;BACKENDS")
  set(TRIDENT_REGISTRAR_DECLARATIONS "")
  set(TRIDENT_LOCAL_KERNEL_CALLS "")
  set(TRIDENT_BACKEND_CALLS "")
  foreach(f IN LISTS arg_KERNELS arg_BACKENDS)
    string(APPEND TRIDENT_REGISTRAR_DECLARATIONS "void ${f}();\n")
  endforeach()
  foreach(f IN LISTS arg_KERNELS)
    string(APPEND TRIDENT_LOCAL_KERNEL_CALLS "  ${f}();\n")
  endforeach()
  foreach(f IN LISTS arg_BACKENDS)
    string(APPEND TRIDENT_BACKEND_CALLS "  ${f}();\n")
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/BuiltinRegistrations.cpp")
  configure_file("${_trident_registrations_in}" "${out}" @ONLY)
  target_sources(${target} PRIVATE "${out}")
endfunction()
