# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the DuckDB library it loads
# (found through the $ORIGIN/../lib/probex rpath), the man page and bash completion.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/probex
MANDIR ?= $(PREFIX)/share/man/man1
COMPDIR ?= $(PREFIX)/share/bash-completion/completions

.PHONY: install uninstall
install: $(BUILD)/probex
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR)
	install -m 755 $(BUILD)/probex $(DESTDIR)$(BINDIR)/probex
	install -m 644 $(DUCKDB_DIR)/libduckdb.so $(DESTDIR)$(LIBDIR)/libduckdb.so
	install -m 644 doc/probex.1 $(DESTDIR)$(MANDIR)/probex.1
	install -m 644 doc/probex.bash-completion $(DESTDIR)$(COMPDIR)/probex

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/probex $(DESTDIR)$(LIBDIR)/libduckdb.so \
		$(DESTDIR)$(MANDIR)/probex.1 $(DESTDIR)$(COMPDIR)/probex
	-rmdir $(DESTDIR)$(LIBDIR)
