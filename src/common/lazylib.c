#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lazylib.h"
#include "common/log.h"

static pthread_mutex_t lazylib_lock = PTHREAD_MUTEX_INITIALIZER;

/* dlopen searches the caller's RUNPATH, and the caller is not always probex: under ASan
 * it is the sanitizer's dlopen.  So, failing that, probex's own search path is tried
 * (its RUNPATH with $ORIGIN expanded, as the loader reported it for its own libraries). */
static void *lazylib__open(const char *soname)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_GLOBAL), *self;
	Dl_serinfo size, *si = NULL;
	char path[4096];

	if (h || !(self = dlopen(NULL, RTLD_NOW)))
		return h;
	if (!dlinfo(self, RTLD_DI_SERINFOSIZE, &size) && (si = malloc(size.dls_size)) &&
	    !dlinfo(self, RTLD_DI_SERINFOSIZE, si) && !dlinfo(self, RTLD_DI_SERINFO, si)) {
		for (unsigned int i = 0; !h && i < si->dls_cnt; i++) {
			snprintf(path, sizeof(path), "%s/%s", si->dls_serpath[i].dls_name, soname);
			h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
		}
	}
	free(si);
	dlclose(self);
	return h ? h : dlopen(soname, RTLD_NOW | RTLD_GLOBAL);	/* for dlerror() */
}

static void lazylib__load(struct lazylib *lib)
{
	const char *name = lib->names;

	lib->handle = lazylib__open(lib->soname);
	if (!lib->handle) {
		log__error("cannot load %s: %s", lib->soname, dlerror());
		exit(1);
	}
	for (size_t i = 0; i < lib->count; i++, name += strlen(name) + 1) {
		void *fn = dlsym(lib->handle, name);

		if (!fn) {
			log__error("%s has no %s: %s", lib->soname, name, dlerror());
			exit(1);
		}
		/* Other threads may be jumping through the slots already bound. */
		__atomic_store_n(&lib->slots[i], fn, __ATOMIC_RELEASE);
	}
}

void *lazylib__bind(struct lazylib *lib, size_t i)
{
	void *fn;

	pthread_mutex_lock(&lazylib_lock);
	if (!lib->handle)
		lazylib__load(lib);
	fn = lib->slots[i];
	pthread_mutex_unlock(&lazylib_lock);
	return fn;
}
