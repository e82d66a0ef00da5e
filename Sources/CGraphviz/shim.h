#ifndef RETRYFLOW_CGRAPHVIZ_SHIM_H
#define RETRYFLOW_CGRAPHVIZ_SHIM_H

#include <stddef.h>
#include <stdlib.h>
#include <graphviz/gvc.h>
#include <graphviz/cgraph.h>

/* Swift cannot call these C macros, and Graphviz changed some signatures between releases.
   Each wrapper picks the right call at compile time with _Generic on the function's own type,
   so one source builds against Graphviz 2.42 (Debian 12) and later releases alike. */

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* Graphviz is opened on first use (dlopen), not linked: linked, every start of the CLI paid for
   loading libgvc, libcgraph, libcdt and theirs (1.8 ms of a 42 ms `retryflow fetch`, which draws
   nothing: issue 24), and a machine without Graphviz could not run the CLI at all. The headers still
   give every type and signature; the table below holds one pointer a function, typed from them. */
#define RF_GV_FUNCTIONS(X) \
    X(gvContext) X(gvLayout) X(gvFreeLayout) X(gvRenderData) X(gvFreeRenderData) X(gvPluginList) \
    X(agmemread) X(agclose) X(agisdirected) X(agfstnode) X(agnxtnode) X(agfstout) X(agnxtout) \
    X(agfstsubg) X(agnxtsubg) X(agnameof) X(aghtmlstr) X(agget) X(agsafeset) X(agseterr) X(aglasterr)

typedef struct {
    int loaded;
    char problem[512];
#define RF_GV_FIELD(name) __typeof__(&name) name;
    RF_GV_FUNCTIONS(RF_GV_FIELD)
#undef RF_GV_FIELD
} rf_gv_table;

/* One table per module that includes this header (a static in an inline function). */
static inline rf_gv_table *rf_gv_storage(void) {
    static rf_gv_table table;
    return &table;
}

static inline void rf_gv_open(void) {
    rf_gv_table *t = rf_gv_storage();
    /* libgvc's dependencies (libcgraph, libcdt) come with it; dlsym on its handle searches them too. */
    static const char *const names[] = {
#if defined(__APPLE__)
        "libgvc.6.dylib", "libgvc.dylib", "/opt/homebrew/lib/libgvc.dylib", "/usr/local/lib/libgvc.dylib",
#else
        "libgvc.so.6", "libgvc.so",
#endif
    };
    /* RETRYFLOW_GRAPHVIZ_LIBRARY names the library when it is elsewhere (and only it is tried). */
    const char *chosen = getenv("RETRYFLOW_GRAPHVIZ_LIBRARY");
    const char *first = chosen != NULL && chosen[0] != 0 ? chosen : names[0];
    void *handle = NULL;
    if (first == chosen) {
        handle = dlopen(chosen, RTLD_NOW | RTLD_GLOBAL);
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) {
            handle = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        }
    }
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(t->problem, sizeof t->problem, "could not load Graphviz: %s", why ? why : first);
        return;
    }
#define RF_GV_LOAD(name) \
    t->name = (__typeof__(&name))dlsym(handle, #name); \
    if (t->name == NULL) { \
        snprintf(t->problem, sizeof t->problem, "Graphviz's %s has no function %s", first, #name); \
        return; \
    }
    RF_GV_FUNCTIONS(RF_GV_LOAD)
#undef RF_GV_LOAD
    t->loaded = 1;
}

/* Loads Graphviz once; 0 when it is missing (rf_gv_problem() then says why). */
static inline int rf_gv_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, rf_gv_open);
    return rf_gv_storage()->loaded;
}

static inline const char *rf_gv_problem(void) { return rf_gv_storage()->problem; }

/* The calls, through the table. Graphviz.withContext checks rf_gv_load() before any call, so a
   missing library is an error there, never a call through a null pointer. */
#define RF_GV (rf_gv_load(), rf_gv_storage())
static inline GVC_t *rf_context(void) { return RF_GV->gvContext(); }
static inline int rf_layout(GVC_t *gvc, graph_t *g, const char *engine) { return RF_GV->gvLayout(gvc, g, engine); }
static inline int rf_free_layout(GVC_t *gvc, graph_t *g) { return RF_GV->gvFreeLayout(gvc, g); }
static inline void rf_free_render_data(char *data) { RF_GV->gvFreeRenderData(data); }
static inline Agraph_t *rf_read(const char *text) { return RF_GV->agmemread(text); }
static inline int rf_close(Agraph_t *g) { return RF_GV->agclose(g); }
static inline int rf_is_directed(Agraph_t *g) { return RF_GV->agisdirected(g); }
static inline Agnode_t *rf_first_node(Agraph_t *g) { return RF_GV->agfstnode(g); }
static inline Agnode_t *rf_next_node(Agraph_t *g, Agnode_t *n) { return RF_GV->agnxtnode(g, n); }
static inline Agedge_t *rf_first_out(Agraph_t *g, Agnode_t *n) { return RF_GV->agfstout(g, n); }
static inline Agedge_t *rf_next_out(Agraph_t *g, Agedge_t *e) { return RF_GV->agnxtout(g, e); }
static inline Agraph_t *rf_first_subgraph(Agraph_t *g) { return RF_GV->agfstsubg(g); }
static inline Agraph_t *rf_next_subgraph(Agraph_t *g) { return RF_GV->agnxtsubg(g); }
static inline char *rf_name(void *object) { return RF_GV->agnameof(object); }
static inline int rf_is_html(char *text) { return RF_GV->aghtmlstr(text); }
static inline char *rf_last_error(void) { return RF_GV->aglasterr(); }

typedef int (*rf_render_data_uint)(GVC_t *, graph_t *, const char *, char **, unsigned int *);
typedef int (*rf_render_data_size)(GVC_t *, graph_t *, const char *, char **, size_t *);

/* gvRenderData: `length` is `unsigned int *` in 2.42 and `size_t *` later. */
static inline int rf_render_data(GVC_t *gvc, graph_t *g, const char *format, char **result, size_t *length) {
    unsigned int small = 0;
    size_t large = 0;
    int rc = _Generic(&gvRenderData,
        rf_render_data_uint: ((rf_render_data_uint)(void *)RF_GV->gvRenderData)(gvc, g, format, result, &small),
        default: ((rf_render_data_size)(void *)RF_GV->gvRenderData)(gvc, g, format, result, &large));
    *length = small != 0 ? (size_t)small : large;
    return rc;
}

typedef char **(*rf_plugin_list_4)(GVC_t *, const char *, int *, char *);
typedef char **(*rf_plugin_list_3)(GVC_t *, const char *, int *);

/* gvPluginList: a fourth, unused argument in 2.42, gone later. Caller frees each string and the list. */
static inline char **rf_plugin_list(GVC_t *gvc, const char *kind, int *count) {
    return _Generic(&gvPluginList,
        rf_plugin_list_4: ((rf_plugin_list_4)(void *)RF_GV->gvPluginList)(gvc, kind, count, NULL),
        default: ((rf_plugin_list_3)(void *)RF_GV->gvPluginList)(gvc, kind, count));
}

/* Macros in 2.42, functions in later releases (found by name once Graphviz is loaded, RTLD_GLOBAL). */
#ifdef agtail
static inline Agnode_t *rf_tail(Agedge_t *e) { return agtail(e); }
static inline Agnode_t *rf_head(Agedge_t *e) { return aghead(e); }
#else
static inline Agnode_t *rf_tail(Agedge_t *e) {
    static __typeof__(&agtail) tail;
    if (tail == NULL) tail = (__typeof__(&agtail))dlsym(RTLD_DEFAULT, "agtail");
    return tail(e);
}
static inline Agnode_t *rf_head(Agedge_t *e) {
    static __typeof__(&aghead) head;
    if (head == NULL) head = (__typeof__(&aghead))dlsym(RTLD_DEFAULT, "aghead");
    return head(e);
}
#endif

/* agget takes a non-const name in 2.42. */
static inline const char *rf_get(void *object, const char *name) { return RF_GV->agget(object, (char *)name); }

/* agsafeset takes non-const strings in 2.42; declares the attribute (default "") when new. */
static inline int rf_set(void *object, const char *name, const char *value) {
    return RF_GV->agsafeset(object, (char *)name, (char *)value, "");
}

/* Silence Graphviz's own stderr messages; aglasterr() then returns the last one. */
static inline void rf_quiet_errors(void) { RF_GV->agseterr(AGMAX); }

static inline void rf_free(void *p) { free(p); }

/* AGSEQ is a macro: the order an object was created in, so edges can be listed as written. */
static inline unsigned long rf_seq(void *object) { return (unsigned long)AGSEQ(object); }

#endif
