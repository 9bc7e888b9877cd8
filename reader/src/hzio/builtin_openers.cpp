// The composition root of hzio::core: every backend built into this library registers its URL
// schemes here (access/dataset_openers.h). It sits above access/ and the backends, so access/
// includes none of them, and a plain function call (not a static initialiser) keeps the backends
// linked from a static library.
#include "hzio/access/dataset_openers.h"

#ifdef HZIO_HAVE_REMOTE
#include "hzio/remote/remote_dataset.h"
#endif

namespace hzio::internal_access {

void RegisterBuiltinOpeners(DatasetOpeners& openers) {
#ifdef HZIO_HAVE_REMOTE
  RegisterRemoteOpeners(openers);  // http://, https:// (mod_visus)
#else
  (void)openers;
#endif
}

}  // namespace hzio::internal_access
