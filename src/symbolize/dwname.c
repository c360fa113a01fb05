#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dwname.h"
#include "symbolize/strmap.h"

struct dwname {
	struct strmap qualified;	/* DIE address → qualified name (or NULL: not needed) */
	struct arena strings;
};

struct dwname *dwname__new(void)
{
	return calloc(1, sizeof(struct dwname));
}

void dwname__free(struct dwname *n)
{
	if (!n)
		return;
	arena__free(&n->strings);
	strmap__free(&n->qualified);
	free(n);
}

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, name, &attr));

	return s && *s ? s : NULL;
}

static bool is_mangled(const char *s)
{
	return s && s[0] == '_' && (s[1] == 'Z' || s[1] == 'R');
}

static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case 0x2a:	/* DW_LANG_C_plus_plus_17 (DWARF 6 draft, newer compilers) */
	case 0x2b:	/* DW_LANG_C_plus_plus_20 */
		return true;
	default:
		return false;
	}
}

/* The DIE that carries DW_AT_name itself: through abstract origins (inlined and concrete
 * instances) and specifications (out-of-class definitions) to the declaration, whose
 * place in the tree gives the enclosing scopes. */
static bool named_decl(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die cur = *die;

	for (int i = 0; i < 16; i++) {
		if (dwarf_hasattr(&cur, DW_AT_name)) {
			*out = cur;
			return true;
		}
		if (!dwarf_formref_die(dwarf_attr(&cur, DW_AT_abstract_origin, &attr), &cur) &&
		    !dwarf_formref_die(dwarf_attr(&cur, DW_AT_specification, &attr), &cur))
			return false;
	}
	return false;
}

/* "ns::Class::name" from the scopes around the declaration. NULL when there are none
 * (or on failure: the caller falls back to the plain name). */
static char *qualify(Dwarf_Die *decl, const char *name)
{
	Dwarf_Die *scopes = NULL;
	char *out = NULL, *prefixed;
	int n = dwarf_getscopes_die(decl, &scopes);

	/* scopes[0] is decl itself, the last one its CU; in between, outermost last. */
	for (int i = 1; i < n - 1; i++) {
		const char *scope;

		switch (dwarf_tag(&scopes[i])) {
		case DW_TAG_namespace:
			scope = dwarf_diename(&scopes[i]);
			if (!scope)
				scope = "(anonymous namespace)";
			break;
		case DW_TAG_class_type:
			/* GCC leaves lambdas' closure classes unnamed. */
			scope = attr_string(&scopes[i], DW_AT_name);
			if (!scope)
				scope = "{lambda}";
			break;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_subprogram:
			/* Local classes are named within their function. */
			scope = attr_string(&scopes[i], DW_AT_name);
			break;
		default:
			continue;
		}
		if (!scope)
			continue;
		if (asprintf(&prefixed, "%s::%s", scope, out ? out : name) < 0) {
			free(out);
			out = NULL;
			break;
		}
		free(out);
		out = prefixed;
	}
	free(scopes);
	return out;
}

const char *dwname__get(struct dwname *n, Dwarf_Die *die)
{
	const char *linkage = attr_string(die, DW_AT_linkage_name);
	const char *name, *q;
	Dwarf_Die decl;
	uint64_t key, val;
	char *full;

	if (!linkage)
		linkage = attr_string(die, DW_AT_MIPS_linkage_name);
	/* A mangled linkage name carries the namespaces and parameters DW_AT_name lacks. An
	 * unmangled one is only an assembler alias (glibc's "__GI___libc_malloc" for
	 * __libc_malloc), so the source name is better there. */
	if (is_mangled(linkage))
		return linkage;
	name = attr_string(die, DW_AT_name);
	if (!name)
		return linkage;
	/* C names are global; C++ ones without a linkage name need their scopes, which only
	 * the declaration's place in the tree tells (found once, then cached). */
	if (linkage || !is_cxx(die) || !named_decl(die, &decl))
		return name;
	key = (uintptr_t)decl.addr;
	if (strmap__get(&n->qualified, &key, sizeof(key), &val))
		return val ? (const char *)(uintptr_t)val : name;
	full = qualify(&decl, name);
	q = full ? arena__strndup(&n->strings, full, strlen(full)) : NULL;
	free(full);
	strmap__put(&n->qualified, &key, sizeof(key), (uintptr_t)q);
	return q ? q : name;
}
