//===- kiln.cpp - The kiln command line tool ------------------------------===//
#include "kiln/Driver/Driver.h"

int main(int argc, char **argv) { return kiln::driver::run(argc, argv); }
