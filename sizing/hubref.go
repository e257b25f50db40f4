package sizing

import "strings"

// hubHosts are the host names of Hugging Face Hub links.
var hubHosts = []string{"huggingface.co/", "www.huggingface.co/", "hf.co/"}

// hubLinkPrefix is how Format writes a Hub repo id: as a short link,
// which the parser always reads as one ("hf.co/Qwen/Qwen3-14B").
const HubLinkPrefix = "hf.co/"

// isHubLink reports whether a word starts like a link to the Hub.
func IsHubLink(word string) bool {
	w := strings.ToLower(word)
	w = strings.TrimPrefix(strings.TrimPrefix(w, "https://"), "http://")
	for _, host := range hubHosts {
		if strings.HasPrefix(w, host) {
			return true
		}
	}
	return false
}

// maxRepoPart is the longest organisation or repository name the Hub
// accepts (huggingface_hub's validate_repo_id: 96 characters).
const maxRepoPart = 96

// HubRepoID recognises a model on the Hugging Face Hub named by its repo
// id ("Qwen/Qwen3-14B"), by a link to it
// ("https://huggingface.co/Qwen/Qwen3-14B", "hf.co/Qwen/Qwen3-14B/tree/main")
// or by a link as Slack delivers one
// ("<https://huggingface.co/Qwen/Qwen3-14B|Qwen3-14B>"). It returns the
// repo id as written and whether word is one. It reads the syntax only:
// whether the repository exists is the Hub's to say. A bare id needs its
// organisation; links to datasets, Spaces and the Hub's own pages are not
// models.
func HubRepoID(word string) (string, bool) {
	w := strings.TrimSpace(word)
	if strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">") {
		w = w[1 : len(w)-1]
		if i := strings.IndexByte(w, '|'); i >= 0 {
			w = w[:i]
		}
	}
	link := false
	for _, scheme := range []string{"https://", "http://"} {
		if len(w) >= len(scheme) && strings.EqualFold(w[:len(scheme)], scheme) {
			w, link = w[len(scheme):], true
			break
		}
	}
	for _, host := range hubHosts {
		if len(w) >= len(host) && strings.EqualFold(w[:len(host)], host) {
			w, link = w[len(host):], true
			break
		}
	}
	if link {
		if i := strings.IndexAny(w, "?#"); i >= 0 {
			w = w[:i]
		}
		parts := strings.Split(w, "/")
		if len(parts) < 2 {
			return "", false
		}
		switch strings.ToLower(parts[0]) {
		case "datasets", "spaces", "api", "docs", "models", "settings", "organizations", "collections", "papers", "blog":
			return "", false
		}
		if len(parts) > 2 {
			switch parts[2] {
			case "tree", "blob", "resolve", "raw", "discussions", "commits", "commit":
			case "":
				if len(parts) > 3 {
					return "", false
				}
			default:
				return "", false
			}
		}
		w = parts[0] + "/" + parts[1]
	}
	org, name, ok := strings.Cut(w, "/")
	if !ok || !repoPart(org) || !repoPart(name) || strings.HasSuffix(name, ".git") || !link && perUnits[strings.ToLower(name)] {
		return "", false
	}
	return w, true
}

// perUnits end a rate written with a slash ("tokens/sec", "req/s",
// "$/gpu"): typed without a link, such a word is a unit, not a repo.
var perUnits = map[string]bool{
	"s": true, "sec": true, "secs": true, "second": true, "seconds": true, "ms": true, "min": true, "mins": true, "minute": true,
	"h": true, "hr": true, "hrs": true, "hour": true, "hours": true, "day": true, "days": true, "wk": true, "week": true,
	"mo": true, "month": true, "yr": true, "year": true, "gpu": true, "user": true, "users": true, "req": true, "request": true,
	"step": true, "token": true, "tok": true, "image": true, "img": true,
}

// repoPart reports whether s is a valid organisation or repository name
// on the Hub: letters, digits, '-', '_' and '.', starting and ending with
// a letter or digit, no "--" or "..", at most maxRepoPart long, and with
// a letter in it (so that "2/4" is a fraction, not a repository).
func repoPart(s string) bool {
	if s == "" || len(s) > maxRepoPart || strings.Contains(s, "--") || strings.Contains(s, "..") {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		case '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_':
			if i == 0 || i == len(s)-1 {
				return false
			}
		default:
			return false
		}
	}
	return letter
}
