// The header is the point of this target; a C target needs one source file.
#include "CEpoll.h"
