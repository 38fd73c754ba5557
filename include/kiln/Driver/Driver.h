//===- kiln/Driver/Driver.h - The kiln command line -------------*- C++ -*-===//
#ifndef KILN_DRIVER_DRIVER_H
#define KILN_DRIVER_DRIVER_H

namespace kiln::driver {

/// Runs `kiln` with the process's arguments. Returns the exit status: 0 on
/// success, 1 on a compile error in the user's code, 2 on bad usage.
int run(int argc, char **argv);

} // namespace kiln::driver

#endif
