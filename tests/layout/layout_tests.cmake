# The source tree keeps its layers (tests/layout/check_layers.py). Included by
# tests/CMakeLists.txt after find_package(Python3 COMPONENTS Interpreter).
if(Python3_FOUND)
  add_test(NAME layout/layers
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout/check_layers.py ${PROJECT_SOURCE_DIR})
endif()
