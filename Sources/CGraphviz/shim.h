#ifndef RETRYFLOW_CGRAPHVIZ_SHIM_H
#define RETRYFLOW_CGRAPHVIZ_SHIM_H
#include <graphviz/gvc.h>
#endif
