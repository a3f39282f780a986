#include <string.h>

#include "error.h"
#include "mail.h"
#include "mailmap.h"
#include "util.h"

int mailmap_from_commit(git_mailmap **out, git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int error;

	*out = NULL;
	if (!commit || git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0 ||
	    git_tree_entry_bypath(&entry, tree, ".mailmap") < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(entry)) < 0) {
		/* No .mailmap: nobody is renamed. */
		error = git_mailmap_new(out);
		goto done;
	}
	error = git_mailmap_from_buffer(out, git_blob_rawcontent(blob),
					(size_t)git_blob_rawsize(blob));
done:
	if (error < 0)
		error = tide_error_git(TIDE_ERROR, "cannot read .mailmap");
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}

/* Safe in a mail header: no quotes, angle brackets, commas or control characters. */
static int header_safe(const char *s, int is_addr)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 127 || strchr("\"<>,;", *s) ||
		    (is_addr && *s == ' '))
			return 0;
	return 1;
}

char *mailmap_resolve_addr(const git_mailmap *mm, const char *addr)
{
	const char *lt = strchr(addr, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *real_name = NULL, *real_email = NULL;
	char *name, *email, *out;
	size_t n;

	if (lt && gt) {
		for (n = (size_t)(lt - addr); n && addr[n - 1] == ' '; n--)
			;
		name = xstrndup(addr, n);
		email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	} else {
		name = xstrdup("");
		email = xstrdup(addr);
	}
	if (!mm || git_mailmap_resolve(&real_name, &real_email, mm, name, email) < 0 ||
	    !real_email || !*real_email || !strchr(real_email, '@') ||
	    !header_safe(real_email, 1) || !header_safe(real_name ? real_name : "", 0))
		out = xstrdup(addr);
	else if (real_name && *real_name)
		out = xasprintf("%s <%s>", real_name, real_email);
	else
		out = xstrdup(real_email);
	free(name);
	free(email);
	return out;
}

static void resolve_list(const git_mailmap *mm, char ***list, size_t *n)
{
	char **old = *list;
	size_t i, nold = *n;

	*list = NULL, *n = 0;
	for (i = 0; i < nold; i++) {
		char *r = mailmap_resolve_addr(mm, old[i]);

		mail_add_rcpt(list, n, r);
		free(r);
		free(old[i]);
	}
	free(old);
}

void mailmap_resolve_rcpts(const git_mailmap *mm, struct mail_msg *m)
{
	size_t i, j;

	resolve_list(mm, &m->to, &m->nto);
	resolve_list(mm, &m->cc, &m->ncc);
	/* Two trees' contacts may now be one person: To wins. */
	for (i = 0; i < m->ncc;) {
		for (j = 0; j < m->nto && strcmp(m->to[j], m->cc[i]); j++)
			;
		if (j < m->nto) {
			free(m->cc[i]);
			memmove(m->cc + i, m->cc + i + 1, (m->ncc - i - 1) * sizeof(char *));
			m->ncc--;
		} else {
			i++;
		}
	}
}
