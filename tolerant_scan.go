package paygate

import (
	"bytes"
	"encoding/json"
)

// The tolerant decoder splits objects and arrays into the spans of their
// members itself, rather than through encoding/json into a map of
// json.RawMessage, which would copy every key and value of every answer.
// The body is checked with json.Valid once, so the scanners below only
// ever see valid JSON.

// member is one name and value of a JSON object, as spans of the body; key
// keeps its quotes.
type member struct{ key, value []byte }

// objectMembers appends the members of the valid JSON object raw to buf.
func objectMembers(raw []byte, buf []member) []member {
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		keyEnd := valueEnd(raw, i)
		start := skipSpace(raw, skipSpace(raw, keyEnd)+1) // past the colon
		end := valueEnd(raw, start)
		buf = append(buf, member{key: raw[i:keyEnd], value: raw[start:end]})
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return buf
}

// arrayElements appends the elements of the valid JSON array raw to buf.
func arrayElements(raw []byte, buf [][]byte) [][]byte {
	i := skipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		end := valueEnd(raw, i)
		buf = append(buf, raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return buf
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value that starts at i.
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return stringEnd(raw, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = stringEnd(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw)
	}
	j := i
	for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' && raw[j] != ' ' &&
		raw[j] != '\t' && raw[j] != '\n' && raw[j] != '\r' {
		j++
	}
	return j
}

// stringEnd returns the index just past the string whose quote is at i.
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// keyIs reports whether the quoted key names name, exactly or (fold)
// without regard to case. Keys with escapes are unquoted first, as
// encoding/json would.
func keyIs(key []byte, name string, fold bool) bool {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var s string
		if json.Unmarshal(key, &s) != nil {
			return false
		}
		inner = []byte(s)
	}
	if fold {
		return bytes.EqualFold(inner, []byte(name))
	}
	return string(inner) == name
}
