#include "engine/opr_error.h"

#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {
/*! \brief Recognised so an error spreading through a bulk or several ops is named once. */
class OprError : public Error {
 public:
  OprError(const std::string& opr_name, const std::string& what, const char* kind)
      : Error("Error in operator " + (opr_name.empty() ? std::string("<unnamed>") : opr_name) + ": " + what, kind) {}
};
}  // namespace

std::exception_ptr WrapOprError(const std::string& opr_name, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const OprError&) {
    return error;
  } catch (const Error& e) {
    return std::make_exception_ptr(OprError(opr_name, e.what(), e.kind()));
  } catch (const std::exception& e) {
    return std::make_exception_ptr(OprError(opr_name, e.what(), "MXNetError"));
  } catch (...) {
    return std::make_exception_ptr(
        OprError(opr_name, "unknown exception (not derived from std::exception)", "MXNetError"));
  }
}

}  // namespace engine
}  // namespace mxnet
