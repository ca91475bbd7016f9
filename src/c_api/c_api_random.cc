/*!
 * \file c_api_random.cc
 * \brief MXRandomSeed / MXRandomSeedContext.
 */
#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/imperative.h"

int MXRandomSeed(int seed) {
  API_BEGIN();
  mxnet::imperative::RandomSeed(static_cast<uint32_t>(seed));
  API_END();
}

int MXRandomSeedContext(int seed, int dev_type, int dev_id) {
  API_BEGIN();
  mxnet::imperative::RandomSeedContext(static_cast<uint32_t>(seed), mxnet::Context::Create(dev_type, dev_id));
  API_END();
}
