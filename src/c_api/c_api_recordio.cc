// C API of RecordIO files (MXRecordIO* in MXNet 1.x), over src/io/recordio.h.
#include <memory>
#include <string>

#include "c_api/api_guard.h"
#include "io/recordio.h"
#include "mxnet/c_api.h"
#include "mxnet/error.h"

namespace {

// One handle type for both directions, so a reader handle passed to a writer call is an
// error rather than undefined behaviour.
struct RecordIOHandleImpl {
  std::unique_ptr<mxnet::io::RecordIOWriter> writer;
  std::unique_ptr<mxnet::io::RecordIOReader> reader;
  std::string record;  // the last record read; ReadRecord's buffer points into it
};

RecordIOHandleImpl* AsWriter(RecordIOHandle handle, const char* api) {
  auto* impl = static_cast<RecordIOHandleImpl*>(handle);
  MX_CHECK_KIND(impl != nullptr && impl->writer != nullptr, "ValueError") << api << ": not a RecordIO writer handle";
  return impl;
}

RecordIOHandleImpl* AsReader(RecordIOHandle handle, const char* api) {
  auto* impl = static_cast<RecordIOHandleImpl*>(handle);
  MX_CHECK_KIND(impl != nullptr && impl->reader != nullptr, "ValueError") << api << ": not a RecordIO reader handle";
  return impl;
}

std::string UriToPath(const char* uri, const char* api) {
  MX_CHECK_KIND(uri != nullptr, "ValueError") << api << ": uri must not be NULL";
  std::string path(uri);
  const std::string scheme = "file://";
  if (path.compare(0, scheme.size(), scheme) == 0) path = path.substr(scheme.size());
  MX_CHECK_KIND(path.find("://") == std::string::npos, "ValueError")
      << api << ": only local files are supported, got '" << uri << "'";
  return path;
}

}  // namespace

int MXRecordIOWriterCreate(const char* uri, RecordIOHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXRecordIOWriterCreate: out must not be NULL";
  auto impl = std::make_unique<RecordIOHandleImpl>();
  impl->writer = std::make_unique<mxnet::io::RecordIOWriter>(UriToPath(uri, "MXRecordIOWriterCreate"));
  *out = impl.release();
  API_END();
}

int MXRecordIOWriterFree(RecordIOHandle handle) {
  API_BEGIN();
  if (handle == nullptr) return 0;
  std::unique_ptr<RecordIOHandleImpl> impl(AsWriter(handle, "MXRecordIOWriterFree"));
  impl->writer->Close();  // reports a failed flush; the handle is freed either way
  API_END();
}

int MXRecordIOWriterWriteRecord(RecordIOHandle handle, const char* buf, size_t size) {
  API_BEGIN();
  auto* impl = AsWriter(handle, "MXRecordIOWriterWriteRecord");
  MX_CHECK_KIND(buf != nullptr || size == 0, "ValueError") << "MXRecordIOWriterWriteRecord: buf is NULL";
  impl->writer->Write(buf, size);
  API_END();
}

int MXRecordIOWriterTell(RecordIOHandle handle, size_t* pos) {
  API_BEGIN();
  auto* impl = AsWriter(handle, "MXRecordIOWriterTell");
  MX_CHECK_KIND(pos != nullptr, "ValueError") << "MXRecordIOWriterTell: pos must not be NULL";
  *pos = impl->writer->Tell();
  API_END();
}

int MXRecordIOReaderCreate(const char* uri, RecordIOHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXRecordIOReaderCreate: out must not be NULL";
  auto impl = std::make_unique<RecordIOHandleImpl>();
  impl->reader = std::make_unique<mxnet::io::RecordIOReader>(UriToPath(uri, "MXRecordIOReaderCreate"));
  *out = impl.release();
  API_END();
}

int MXRecordIOReaderFree(RecordIOHandle handle) {
  API_BEGIN();
  if (handle == nullptr) return 0;
  delete AsReader(handle, "MXRecordIOReaderFree");
  API_END();
}

int MXRecordIOReaderReadRecord(RecordIOHandle handle, const char** buf, size_t* size) {
  API_BEGIN();
  auto* impl = AsReader(handle, "MXRecordIOReaderReadRecord");
  MX_CHECK_KIND(buf != nullptr && size != nullptr, "ValueError")
      << "MXRecordIOReaderReadRecord: buf and size must not be NULL";
  // An empty record gives a non-NULL buf of size 0; only the end of the file gives NULL.
  if (impl->reader->Next(&impl->record)) {
    *buf = impl->record.data();
    *size = impl->record.size();
  } else {
    *buf = nullptr;
    *size = 0;
  }
  API_END();
}

int MXRecordIOReaderSeek(RecordIOHandle handle, size_t pos) {
  API_BEGIN();
  AsReader(handle, "MXRecordIOReaderSeek")->reader->Seek(pos);
  API_END();
}

int MXRecordIOReaderTell(RecordIOHandle handle, size_t* pos) {
  API_BEGIN();
  auto* impl = AsReader(handle, "MXRecordIOReaderTell");
  MX_CHECK_KIND(pos != nullptr, "ValueError") << "MXRecordIOReaderTell: pos must not be NULL";
  *pos = impl->reader->Tell();
  API_END();
}
