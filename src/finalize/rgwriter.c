#include <pthread.h>

#include "parquet/colbuf.h"
#include "finalize/rgwriter.h"

static void *rg_writer__run(void *arg)
{
	struct rg_writer *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		struct colbuf *c;
		int err;

		while (!g->job && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->job)
			break;
		c = g->job;
		pthread_mutex_unlock(&g->mu);
		err = g->err ? g->err : colbuf__flush(c, g->w);
		pthread_mutex_lock(&g->mu);
		g->err = g->err ?: err;
		g->job = NULL;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

void rg_writer__start(struct rg_writer *g, struct pq_writer *w, bool threaded)
{
	*g = (struct rg_writer){ .w = w };
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->started = threaded && !pthread_create(&g->thread, NULL, rg_writer__run, g);
}

int rg_writer__wait(struct rg_writer *g)
{
	int err;

	if (!g->started)
		return g->err;
	pthread_mutex_lock(&g->mu);
	while (g->job)
		pthread_cond_wait(&g->cv, &g->mu);
	err = g->err;
	pthread_mutex_unlock(&g->mu);
	return err;
}

int rg_writer__submit(struct rg_writer *g, struct colbuf *c)
{
	int err = rg_writer__wait(g);

	if (err)
		return err;
	if (!g->started)
		return g->err = colbuf__flush(c, g->w);
	pthread_mutex_lock(&g->mu);
	g->job = c;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

int rg_writer__stop(struct rg_writer *g)
{
	int err = rg_writer__wait(g);

	if (g->started) {
		pthread_mutex_lock(&g->mu);
		g->quit = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		g->started = false;
	}
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	return err;
}
