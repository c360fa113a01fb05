/* Stack labels for `probex synth`: a few hundred realistic lists in the trace's label
 * format: "[user]", user frames root first, then "[kernel]" and kernel frames,
 * with some frames left unsymbolised ("<path>+0x<off>") or raw ("0x<addr>") as real traces
 * have them.  A stack is identified by (program, context, chain, variant). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_model.h"
#include "common/rng.h"
#include "trace/schema.h"

struct synth_stack_slot {
	uint64_t key;
	int32_t id;	/* -1 = empty */
};

struct program {
	const char *binary;		/* path used for unsymbolised frames */
	const char *const *root;	/* outermost frames */
	const char *const *mid;		/* call-path vocabulary */
	unsigned int nmid;
};

static const char *const rust_root[] = { "_start", "__libc_start_main", "__libc_start_call_main",
	"main", "std::rt::lang_start_internal", "std::rt::lang_start::{{closure}}", NULL };
static const char *const c_root[] = { "_start", "__libc_start_main", "__libc_start_call_main",
	"main", NULL };
static const char *const thread_root[] = { "clone3", "start_thread", NULL };

static const char *const server_mid[] = {
	"app_server::main", "tokio::runtime::scheduler::multi_thread::worker::run",
	"tokio::runtime::task::harness::Harness<T,S>::poll",
	"app_server::http::Connection::serve", "hyper::proto::h1::dispatch::Dispatcher::poll_loop",
	"app_server::routes::handle_request", "app_server::store::Store::get",
	"app_server::store::Store::put", "serde_json::de::from_slice",
	"serde_json::ser::to_writer", "app_server::auth::verify_token",
	"ring::digest::digest", "app_server::cache::Lru::lookup", "alloc::raw_vec::finish_grow",
	"hashbrown::raw::RawTable<T>::reserve_rehash", "app_server::log::Logger::flush",
	"tokio::io::poll_evented::PollEvented<E>::poll_read", "mio::net::tcp::stream::TcpStream::read",
	"std::io::Write::write_all", "app_server::metrics::Registry::record",
};
static const char *const pg_mid[] = {
	"PostmasterMain", "ServerLoop", "BackendStartup", "PostgresMain", "exec_simple_query",
	"PortalRun", "ExecutorRun", "ExecScan", "SeqNext", "heap_getnextslot", "ReadBuffer_common",
	"smgrread", "mdread", "FileRead", "XLogInsertRecord", "XLogFlush", "XLogWrite",
	"CheckpointerMain", "BufferSync", "pq_getbyte", "secure_read", "AllocSetAlloc",
};
static const char *const py_mid[] = {
	"Py_RunMain", "pymain_run_python", "_PyRun_SimpleFileObject", "run_mod", "run_eval_code_obj",
	"PyEval_EvalCode", "_PyEval_EvalFrameDefault", "_PyFunction_Vectorcall",
	"method_vectorcall_O", "list_append", "dict_ass_sub", "PyObject_Malloc",
	"_PyObject_GC_New", "gc_collect_main", "_io_FileIO_read_impl", "_io_BufferedReader_read",
	"json_loads", "scanner_call", "unicode_decode_utf8", "_PyLong_Multiply",
};
static const char *const redis_mid[] = {
	"aeMain", "aeProcessEvents", "connSocketEventHandler", "readQueryFromClient",
	"processInputBuffer", "processCommand", "call", "setCommand", "getCommand",
	"lookupKeyRead", "dictFind", "zmalloc", "sdsMakeRoomFor", "writeToClient",
	"_writeToClient", "rdbSaveRio", "bioProcessBackgroundJobs", "lazyfreeFreeObject",
};
static const char *const rustc_mid[] = {
	"rustc_driver_impl::main", "rustc_interface::passes::analysis",
	"rustc_query_system::query::plumbing::try_execute_query",
	"rustc_hir_typeck::typeck", "rustc_trait_selection::traits::select::SelectionContext::select",
	"rustc_middle::ty::context::TyCtxt::mk_ty", "rustc_codegen_llvm::base::compile_codegen_unit",
	"llvm::legacy::PassManagerImpl::run", "llvm::SelectionDAGISel::runOnMachineFunction",
	"rustc_mir_transform::run_pass", "rustc_borrowck::do_mir_borrowck",
	"rustc_metadata::rmeta::decoder::CrateMetadataRef::get_item",
	"rustc_arena::DroplessArena::grow", "rustc_data_structures::sync::worker_local::WorkerLocal<T>::new",
	"rustc_span::source_map::SourceMap::load_file", "alloc::alloc::exchange_malloc",
};
static const char *const cc1_mid[] = {
	"toplev::main", "compile_file", "c_parse_file", "c_parser_translation_unit",
	"c_parser_external_declaration", "c_parser_declaration_or_fndef", "c_parser_compound_statement",
	"gimplify_function_tree", "execute_one_pass", "execute_pass_list_1", "rest_of_handle_final",
	"ggc_internal_alloc", "ht_lookup_with_hash", "cpp_get_token_1", "_cpp_lex_direct",
	"expand_expr_real_1", "df_analyze",
};
static const char *const git_mid[] = {
	"cmd_main", "handle_builtin", "run_builtin", "cmd_status", "wt_status_collect",
	"run_diff_index", "read_index_from", "do_read_index", "refresh_index", "ie_match_stat",
	"lstat_cache_matchlen", "xmalloc", "strbuf_grow", "packed_object_info", "unpack_entry",
	"git_inflate", "inflate_fast",
};

static const struct program programs[] = {
	{ "/usr/local/bin/app-server", rust_root, server_mid, sizeof(server_mid) / sizeof(char *) },
	{ "/usr/lib/postgresql/15/bin/postgres", c_root, pg_mid, sizeof(pg_mid) / sizeof(char *) },
	{ "/usr/bin/python3.11", c_root, py_mid, sizeof(py_mid) / sizeof(char *) },
	{ "/usr/bin/redis-server", c_root, redis_mid, sizeof(redis_mid) / sizeof(char *) },
	{ "/home/dev/.rustup/toolchains/stable/lib/librustc_driver.so", rust_root, rustc_mid,
	  sizeof(rustc_mid) / sizeof(char *) },
	{ "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1", c_root, cc1_mid, sizeof(cc1_mid) / sizeof(char *) },
	{ "/usr/bin/git", c_root, git_mid, sizeof(git_mid) / sizeof(char *) },
};
#define NPROGRAMS (sizeof(programs) / sizeof(programs[0]))

/* Per context: the libc frames at the user leaf and two kernel call paths. */
struct context {
	const char *user_leaf[3];
	const char *kernel[2][9];
};

static const struct context contexts[] = {
	[SYN_CTX_CPU] = { { NULL }, { { NULL } } },
	[SYN_CTX_READ] = { { "__GI___libc_read" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1fa4",
		    "ksys_read+0x6b", "vfs_read+0xa9", "ext4_file_read_iter+0x5a",
		    "filemap_read+0x2d6", "copy_page_to_iter+0x8f", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1fa4",
		    "ksys_read+0x6b", "vfs_read+0x24c", "sock_read_iter+0x8b",
		    "tcp_recvmsg+0x6e", "tcp_recvmsg_locked+0x2bb", NULL } } },
	[SYN_CTX_WRITE] = { { "__GI___libc_write" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1b85",
		    "ksys_write+0x6b", "vfs_write+0x23c", "ext4_buffered_write_iter+0x70",
		    "generic_perform_write+0xcb", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1b85",
		    "ksys_write+0x6b", "vfs_write+0x30a", "sock_write_iter+0x11a",
		    "tcp_sendmsg+0x28", "tcp_sendmsg_locked+0x3d4", "tcp_push+0xe4" } } },
	[SYN_CTX_MMAP] = { { "__GI___mmap64" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x11d0",
		    "ksys_mmap_pgoff+0x143", "vm_mmap_pgoff+0xe4", "do_mmap+0x46d",
		    "mmap_region+0x1c5", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x11d0",
		    "ksys_mmap_pgoff+0x143", "vm_mmap_pgoff+0xe4", "do_mmap+0x46d",
		    "__mmap_region+0x6b9", "vma_merge_new_range+0x1e", NULL } } },
	[SYN_CTX_MUNMAP] = { { "__GI___munmap" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1a2e",
		    "__x64_sys_munmap+0x27", "__vm_munmap+0xbb", "do_vmi_munmap+0xe0",
		    "do_vmi_align_munmap+0x1f1", "tlb_finish_mmu+0x9c", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1a2e",
		    "__x64_sys_munmap+0x27", "__vm_munmap+0xbb", "do_vmi_munmap+0xe0",
		    "unmap_region+0xb2", "free_pgtables+0xd9", NULL } } },
	[SYN_CTX_BRK] = { { "__brk", "__GI___sbrk" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x72",
		    "__do_sys_brk+0x2b4", "do_brk_flags+0x1a1", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x72",
		    "__do_sys_brk+0x1d6", "do_vmi_align_munmap+0x1f1", NULL } } },
	[SYN_CTX_FSYNC] = { { "__GI___fsync" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x25a0",
		    "__x64_sys_fsync+0x3b", "ext4_sync_file+0x1c2", "file_write_and_wait_range+0x8e",
		    "jbd2_complete_transaction+0x6f", "jbd2_log_wait_commit+0xcf", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x25a0",
		    "__x64_sys_fsync+0x3b", "ext4_sync_file+0x1c2", "blkdev_issue_flush+0x47",
		    "submit_bio_wait+0x62", NULL } } },
	[SYN_CTX_FDATASYNC] = { { "__GI_fdatasync" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x2581",
		    "__x64_sys_fdatasync+0x3b", "ext4_sync_file+0x1c2",
		    "file_write_and_wait_range+0x8e", "__filemap_fdatawait_range+0x8d", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x2581",
		    "__x64_sys_fdatasync+0x3b", "ext4_sync_file+0x1c2", "blkdev_issue_flush+0x47",
		    NULL } } },
	[SYN_CTX_URING_ENTER] = { { "io_uring_submit_and_wait", "__io_uring_submit", "__sys_io_uring_enter2" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e3d",
		    "__do_sys_io_uring_enter+0x3da", "io_submit_sqes+0x1d5", "io_issue_sqe+0x5e",
		    "io_read+0xbd", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e3d",
		    "__do_sys_io_uring_enter+0x51c", "io_cqring_wait+0x323", "schedule+0x27", NULL } } },
	[SYN_CTX_URING_SETUP] = { { "io_uring_queue_init_params", "__sys_io_uring_setup" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e6a",
		    "__do_sys_io_uring_setup+0x3e", "io_uring_create+0x1d9", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e6a",
		    "__do_sys_io_uring_setup+0x3e", "io_allocate_scq_urings+0x88", NULL } } },
	[SYN_CTX_URING_REGISTER] = { { "io_uring_register_buffers", "__sys_io_uring_register" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e97",
		    "__do_sys_io_uring_register+0x103", "io_sqe_buffers_register+0x125", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "x64_sys_call+0x1e97",
		    "__do_sys_io_uring_register+0x103", "io_sqe_files_register+0x1c3", NULL } } },
	[SYN_CTX_SWITCH] = { { "syscall", "futex_wait" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__x64_sys_futex+0x127",
		    "do_futex+0x106", "futex_wait+0x16d", "schedule+0x27", "__schedule+0x3f1", NULL },
		  { "asm_sysvec_apic_timer_interrupt+0x1a", "sysvec_apic_timer_interrupt+0x8e",
		    "irqentry_exit_to_user_mode+0x1d2", "schedule+0x27", "__schedule+0x3f1", NULL } } },
	[SYN_CTX_FAULT] = { { NULL },
		{ { "asm_exc_page_fault+0x26", "exc_page_fault+0x7c", "do_user_addr_fault+0x17a",
		    "handle_mm_fault+0xe0", "__handle_mm_fault+0x7a3", "do_anonymous_page+0x2f1", NULL },
		  { "asm_exc_page_fault+0x26", "exc_page_fault+0x7c", "do_user_addr_fault+0x17a",
		    "handle_mm_fault+0xe0", "__handle_mm_fault+0x6c1", "filemap_fault+0x7e",
		    "filemap_read_folio+0x3c", NULL } } },
	[SYN_CTX_FORK] = { { "__GI__Fork", "arch_fork" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__do_sys_clone+0x65",
		    "kernel_clone+0xb0", "copy_process+0x1a5c", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__do_sys_clone3+0xb9",
		    "kernel_clone+0xb0", "copy_process+0x1a5c", NULL } } },
	[SYN_CTX_EXIT] = { { "__GI__exit" },
		{ { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__x64_sys_exit_group+0x18",
		    "do_group_exit+0x34", "do_exit+0x2b9", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__x64_sys_exit+0x17",
		    "do_exit+0x2b9", NULL } } },
	[SYN_CTX_URING_COMPLETE] = { { "io_uring_wait_cqe_nr", "__io_uring_get_cqe" },
		{ { "asm_common_interrupt+0x26", "common_interrupt+0x9f", "__common_interrupt+0x41",
		    "handle_edge_irq+0x8c", "nvme_irq\t[nvme]+0x1c", "blk_mq_end_request+0x3b",
		    "io_complete_rw+0x5c", "io_req_task_complete+0x1a", NULL },
		  { "entry_SYSCALL_64_after_hwframe", "do_syscall_64+0x82", "__do_sys_io_uring_enter+0x51c",
		    "io_run_task_work+0x8e", "tctx_task_work+0x11d", "io_req_rw_complete+0x3a", NULL } } },
};

static const char *const cpu_leaf[] = { "memcpy", "__memmove_avx_unaligned_erms", "malloc",
	"_int_malloc", "free", "__strlen_avx2", "pthread_mutex_lock", NULL };

struct label_buf {
	char *s;
	size_t len, cap;
};

static int label_buf__add(struct label_buf *b, const char *label)
{
	size_t n = strlen(label) + 1;

	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 512;
		char *s;

		while (cap < b->len + n + 1)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	if (b->len)
		b->s[b->len++] = '\x1f';
	memcpy(b->s + b->len, label, n);
	b->len += n - 1;
	return 0;
}

/* A user frame label: mostly the symbol, sometimes unsymbolised or raw, fixed per position. */
static int add_user_frame(struct label_buf *b, const struct program *p, const char *sym,
			  uint64_t h)
{
	char tmp[256];

	switch (h % 50) {
	case 0: case 1: case 2: case 3:
		snprintf(tmp, sizeof(tmp), "%s+0x%llx", (h >> 8) & 1 ? p->binary :
			 "/usr/lib/x86_64-linux-gnu/libc.so.6", (unsigned long long)((h >> 12) & 0xfffff));
		return label_buf__add(b, tmp);
	case 4:
		snprintf(tmp, sizeof(tmp), "0x7f%010llx", (unsigned long long)((h >> 12) & 0xffffffffffull));
		return label_buf__add(b, tmp);
	default:
		return label_buf__add(b, sym);
	}
}

static int build_stack(struct label_buf *b, unsigned int prog, unsigned int ctx,
		       unsigned int chain, unsigned int variant)
{
	const struct program *p = &programs[prog % NPROGRAMS];
	const struct context *c = &contexts[ctx];
	uint64_t h = rng__mix(((uint64_t)prog << 40) ^ ((uint64_t)ctx << 32) ^ chain);
	bool kernel_only = (ctx == SYN_CTX_URING_COMPLETE && variant == 0);
	unsigned int depth, i;
	int err = 0;

	if (!kernel_only) {
		const char *const *root = (chain % 5 == 4) ? thread_root : p->root;

		err = label_buf__add(b, STACK_MARK_USER);
		for (i = 0; !err && root[i]; i++)
			err = add_user_frame(b, p, root[i], rng__mix(h + i));
		depth = 2 + (unsigned int)(h % 9);
		for (i = 0; !err && i < depth; i++) {
			uint64_t hi = rng__mix(h ^ (0x9e37ull * (i + 1)));

			err = add_user_frame(b, p, p->mid[hi % p->nmid], hi >> 7);
		}
		if (ctx == SYN_CTX_CPU)
			err = err ?: add_user_frame(b, p, cpu_leaf[(h >> 20) % 7], h >> 30);
		for (i = 0; !err && i < 3 && c->user_leaf[i]; i++)
			err = label_buf__add(b, c->user_leaf[i]);
	}
	if (!err && ctx != SYN_CTX_CPU) {
		err = label_buf__add(b, STACK_MARK_KERNEL);
		for (i = 0; !err && i < 9 && c->kernel[variant & 1][i]; i++)
			err = label_buf__add(b, c->kernel[variant & 1][i]);
	}
	return err;
}

void synth_stacks__init(struct synth_stacks *st)
{
	memset(st, 0, sizeof(*st));
}

void synth_stacks__free(struct synth_stacks *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->joined[i]);
	free(st->joined);
	free(st->slots);
	memset(st, 0, sizeof(*st));
}

static int stacks__grow(struct synth_stacks *st)
{
	size_t cap = st->slot_cap ? st->slot_cap * 2 : 1024;
	struct synth_stack_slot *slots = malloc(cap * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		slots[i].id = -1;
	for (size_t i = 0; i < st->slot_cap; i++) {
		size_t j;

		if (st->slots[i].id < 0)
			continue;
		for (j = rng__mix(st->slots[i].key) & (cap - 1); slots[j].id >= 0; j = (j + 1) & (cap - 1))
			;
		slots[j] = st->slots[i];
	}
	free(st->slots);
	st->slots = slots;
	st->slot_cap = cap;
	return 0;
}

int synth_stacks__get(struct synth_stacks *st, unsigned int prog, unsigned int ctx,
		      unsigned int chain, unsigned int variant)
{
	uint64_t key = ((uint64_t)prog << 48) | ((uint64_t)ctx << 40) | ((uint64_t)chain << 8) | variant;
	struct label_buf b = { 0 };
	size_t j;
	int err;

	if ((st->n + 1) * 2 > st->slot_cap && (err = stacks__grow(st)))
		return err;
	for (j = rng__mix(key) & (st->slot_cap - 1); st->slots[j].id >= 0; j = (j + 1) & (st->slot_cap - 1))
		if (st->slots[j].key == key)
			return st->slots[j].id;
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 256;
		char **joined = realloc(st->joined, cap * sizeof(*joined));

		if (!joined)
			return -ENOMEM;
		st->joined = joined;
		st->cap = cap;
	}
	err = build_stack(&b, prog, ctx, chain, variant);
	if (err) {
		free(b.s);
		return err;
	}
	st->joined[st->n] = b.s;
	st->slots[j].key = key;
	st->slots[j].id = (int32_t)st->n;
	return (int)st->n++;
}
