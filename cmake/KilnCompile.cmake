# kiln_compile(<target> [BACKEND eager|aot_eager|cpu|cuda] [SIGNATURES file]
#              [TARGET_CPU cpu] [SOURCES src...] [OPTIONS opt...])
#
# Routes the target's C++ sources (all of them, or those named) through
# `kiln compile` at build time: each source's stitched copy (and, for the cpu
# and cuda backends, its compiled graphs' object; GPU kernels are embedded
# in the stitched copy) is built in its place, under
# ${CMAKE_CURRENT_BINARY_DIR}/kiln/<target>/. kiln sees the target's include
# directories, definitions and C++ standard; it re-runs when the source or a
# header it includes changes (DEPFILE), and its diagnostics point at the
# user's source lines. OPTIONS go to `kiln compile` exactly as written
# (--suppress-errors, "--annotate=NS::f=compile(fullgraph=true)", ...). Only
# <target> changes: the routed sources leave its SOURCES, and other targets
# built from them (an eager build beside this one) keep them. SIGNATURES
# names a file that a run of a stitched build wrote with KILN_RECORD=file:
# the roots are compiled for the signatures it holds (`kiln compile
# --signatures`), and recompiled when it changes. The target's other C++
# sources are each file's call sites too (`--call-sites`): a root declared
# in a header and called from another file is typed by those calls.
# TARGET_CPU compiles the graphs for that CPU (`--target-cpu`, e.g.
# x86-64-v3) instead of the build machine's, or for each CPU of a
# comma-separated list ("x86-64-v3,sapphirerapids"), picked at run time.
function(kiln_compile target)
  cmake_parse_arguments(ARG "" "BACKEND;SIGNATURES;TARGET_CPU"
    "SOURCES;OPTIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kiln_compile(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  # CMake splits an unquoted `--annotate=f=compile(fullgraph=true)` at its
  # parentheses and spaces ("...compile" "(" "fullgraph=true," "backend=cpu"
  # ")"): glue each such run back into the one option it was written as.
  set(options)
  set(depth 0)
  foreach(opt IN LISTS ARG_OPTIONS)
    if(opt STREQUAL "(")
      if(depth EQUAL 0)
        list(POP_BACK options glued)
        string(APPEND glued "(")
        set(first TRUE)
      endif()
      math(EXPR depth "${depth} + 1")
    elseif(opt STREQUAL ")" AND depth GREATER 0)
      string(APPEND glued ")")
      math(EXPR depth "${depth} - 1")
      if(depth EQUAL 0)
        list(APPEND options "${glued}")
      endif()
    elseif(depth GREATER 0)
      if(NOT first)
        string(APPEND glued " ")
      endif()
      string(APPEND glued "${opt}")
      set(first FALSE)
    else()
      list(APPEND options "${opt}")
    endif()
  endforeach()
  set(ARG_OPTIONS ${options})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "kiln_compile(${target}): no such target")
  endif()
  if(NOT ARG_BACKEND)
    set(ARG_BACKEND cpu)
  endif()
  if(NOT ARG_BACKEND MATCHES "^(eager|aot_eager|cpu|cuda)$")
    message(FATAL_ERROR "kiln_compile(${target}): BACKEND must be eager, aot_eager, cpu or cuda")
  endif()
  get_target_property(source_dir ${target} SOURCE_DIR)
  if(NOT ARG_SOURCES)
    get_target_property(all ${target} SOURCES)
    foreach(src IN LISTS all)
      if(src MATCHES "\\.(cpp|cc|cxx|C)$")
        list(APPEND ARG_SOURCES ${src})
      endif()
    endforeach()
  endif()

  set(target_option)
  if(ARG_TARGET_CPU)
    set(target_option --target-cpu=${ARG_TARGET_CPU})
  endif()
  set(signatures_option)
  set(signatures_file)
  if(ARG_SIGNATURES)
    get_filename_component(signatures_file ${ARG_SIGNATURES} ABSOLUTE
      BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    set(signatures_option --signatures ${signatures_file})
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/kiln/${target})
  set(routed)
  file(MAKE_DIRECTORY ${out_dir})
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(standard "$<TARGET_PROPERTY:${target},CXX_STANDARD>")
  set(clang_args
    "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
    "$<$<BOOL:${defines}>:-D$<JOIN:${defines},$<SEMICOLON>-D>>"
    "$<IF:$<BOOL:${standard}>,-std=c++${standard},-std=c++17>")
  # Each file's calls of functions another file defines (a root declared
  # in a header, defined in model.cpp, called from main.cpp) are call sites
  # of that function: kiln reads the types they pass (--call-sites).
  set(all_abs)
  get_target_property(target_sources ${target} SOURCES)
  foreach(src IN LISTS target_sources ARG_SOURCES)
    if(src MATCHES "\\.(cpp|cc|cxx|C)$" AND NOT src MATCHES "^\\$<")
      get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${source_dir})
      list(APPEND all_abs ${abs})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES all_abs)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${source_dir})
    get_filename_component(name ${src} NAME_WE)
    set(others ${all_abs})
    list(REMOVE_ITEM others ${abs})
    set(call_sites)
    foreach(other IN LISTS others)
      list(APPEND call_sites --call-sites ${other})
    endforeach()
    set(stitched ${out_dir}/${name}.kiln.cpp)
    set(outputs ${stitched})
    if(NOT ARG_BACKEND STREQUAL "eager")
      list(APPEND outputs ${out_dir}/${name}.kiln.o)
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND Kiln::kiln compile ${abs} -o ${stitched} --backend=${ARG_BACKEND}
              --depfile ${stitched}.d ${signatures_option} ${target_option}
              ${call_sites}
              ${ARG_OPTIONS} -- ${clang_args}
      DEPENDS ${abs} ${others} Kiln::kiln ${signatures_file}
      DEPFILE ${stitched}.d
      COMMENT "kiln compile ${src} (${ARG_BACKEND})"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND routed ${abs})
    # The stitched copy's #include "..." still resolve beside the original.
    get_filename_component(abs_dir ${abs} DIRECTORY)
    set_source_files_properties(${stitched} TARGET_DIRECTORY ${target}
      PROPERTIES COMPILE_OPTIONS "-iquote;${abs_dir}")
    target_sources(${target} PRIVATE ${outputs})
  endforeach()
  # The originals leave this target only: other targets built from the
  # same sources (an eager build beside the compiled one) keep them.
  get_target_property(sources ${target} SOURCES)
  set(kept)
  foreach(src IN LISTS sources)
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${source_dir})
    if(src MATCHES "^\\$<" OR NOT abs IN_LIST routed)
      list(APPEND kept ${src})
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${kept})
  target_link_libraries(${target} PRIVATE Kiln::runtime)
  if(NOT ARG_BACKEND STREQUAL "eager")
    # CPU kernels call OpenMP's runtime (libomp), whatever compiles the
    # rest (a cuda file may hold cpu roots too). GPU kernels need nothing
    # at link time: the runtime loads the CUDA driver when they first run.
    target_link_libraries(${target} PRIVATE Kiln::omp)
  endif()
endfunction()
