/*!
 * \file devices.h
 * \brief Device slots of the trace: each device is one "process" (pid) in chrome://tracing.
 *        Slots: cpu/0..cpu/(N-1), gpu/0..gpu/31 (CUDA builds only), cpu pinned/, cpu shared/.
 */
#ifndef MXNET_PROFILER_DEVICES_H_
#define MXNET_PROFILER_DEVICES_H_

#include <string>

#include "mxnet/base.h"

namespace mxnet {
namespace profiler {

int DeviceSlotCount();
int DeviceSlot(Context ctx);
/*! \brief "cpu/0", "gpu/1", "cpu pinned/", ... (stable storage, safe to keep the pointer). */
const std::string& DeviceSlotName(int slot);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_DEVICES_H_
