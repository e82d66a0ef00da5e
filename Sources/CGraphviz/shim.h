#ifndef RETRYFLOW_CGRAPHVIZ_SHIM_H
#define RETRYFLOW_CGRAPHVIZ_SHIM_H

#include <stddef.h>
#include <stdlib.h>
#include <graphviz/gvc.h>
#include <graphviz/cgraph.h>

/* Swift cannot call these C macros, and Graphviz changed some signatures between releases.
   Each wrapper picks the right call at compile time with _Generic on the function's own type,
   so one source builds against Graphviz 2.42 (Debian 12) and later releases alike. */

typedef int (*rf_render_data_uint)(GVC_t *, graph_t *, const char *, char **, unsigned int *);
typedef int (*rf_render_data_size)(GVC_t *, graph_t *, const char *, char **, size_t *);

/* gvRenderData: `length` is `unsigned int *` in 2.42 and `size_t *` later. */
static inline int rf_render_data(GVC_t *gvc, graph_t *g, const char *format, char **result, size_t *length) {
    unsigned int small = 0;
    size_t large = 0;
    int rc = _Generic(&gvRenderData,
        rf_render_data_uint: ((rf_render_data_uint)(void *)gvRenderData)(gvc, g, format, result, &small),
        default: ((rf_render_data_size)(void *)gvRenderData)(gvc, g, format, result, &large));
    *length = small != 0 ? (size_t)small : large;
    return rc;
}

typedef char **(*rf_plugin_list_4)(GVC_t *, const char *, int *, char *);
typedef char **(*rf_plugin_list_3)(GVC_t *, const char *, int *);

/* gvPluginList: a fourth, unused argument in 2.42, gone later. Caller frees each string and the list. */
static inline char **rf_plugin_list(GVC_t *gvc, const char *kind, int *count) {
    return _Generic(&gvPluginList,
        rf_plugin_list_4: ((rf_plugin_list_4)(void *)gvPluginList)(gvc, kind, count, NULL),
        default: ((rf_plugin_list_3)(void *)gvPluginList)(gvc, kind, count));
}

static inline Agnode_t *rf_tail(Agedge_t *e) { return agtail(e); }
static inline Agnode_t *rf_head(Agedge_t *e) { return aghead(e); }

/* agget takes a non-const name in 2.42. */
static inline const char *rf_get(void *object, const char *name) { return agget(object, (char *)name); }

/* agsafeset takes non-const strings in 2.42; declares the attribute (default "") when new. */
static inline int rf_set(void *object, const char *name, const char *value) {
    return agsafeset(object, (char *)name, (char *)value, "");
}

/* Silence Graphviz's own stderr messages; aglasterr() then returns the last one. */
static inline void rf_quiet_errors(void) { agseterr(AGMAX); }

static inline void rf_free(void *p) { free(p); }

/* AGSEQ is a macro: the order an object was created in, so edges can be listed as written. */
static inline unsigned long rf_seq(void *object) { return (unsigned long)AGSEQ(object); }

#endif
