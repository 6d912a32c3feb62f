#!/usr/bin/env bash
# For a build tree made on the development machine and run on a GPU machine: the tests run
# through tests/expect_run.cmake call the cmake that configured the tree by its absolute path
# (/usr/bin/cmake there), which the GPU machine may not have (its cmake lives elsewhere). Links
# it there, or says why those tests will not run.
#   bash scripts/link_configured_cmake.sh BUILD_DIR
configured_cmake=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$1/CMakeCache.txt")
if [ -n "$configured_cmake" ] && [ ! -x "$configured_cmake" ]; then
  ln -s "$(command -v cmake)" "$configured_cmake" 2>/dev/null ||
    echo "warning: $configured_cmake is missing here; the tests run through it will not run" >&2
fi
exit 0
