# Links every file of Valgrind's core folder (CORE) into DEST, except the
# core's own tools: Valgrind looks for the core's files beside the tool.
file(GLOB files "${CORE}/*")
file(MAKE_DIRECTORY "${DEST}")
foreach(f ${files})
  get_filename_component(name "${f}" NAME)
  if(name MATCHES "-(amd64|x86)-linux$" OR name MATCHES "^vgpreload_(memcheck|helgrind|drd|massif|dhat|exp-)")
    continue()
  endif()
  file(CREATE_LINK "${f}" "${DEST}/${name}" SYMBOLIC)
endforeach()
