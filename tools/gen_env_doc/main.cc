// Prints the environment-variable reference generated from the registry (docs/env_var.md).
#include <iostream>

#include "mxnet/env.h"

int main() {
  std::cout << mxnet::env::GenerateMarkdown();
  return 0;
}
