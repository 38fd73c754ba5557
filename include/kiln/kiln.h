//===- kiln/kiln.h - Everything model code needs ----------------*- C++ -*-===//
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include "kiln/Autocast.h"
#include "kiln/Autograd.h"
#include "kiln/Cpu.h"
#include "kiln/Cuda.h"
#include "kiln/DType.h"
#include "kiln/Error.h"
#include "kiln/Ops.h"
#include "kiln/Optim.h"
#include "kiln/Tensor.h"
#include "kiln/abi.h"
#include "kiln/annotations.h"
#include "kiln/version.h"

#endif // KILN_KILN_H
