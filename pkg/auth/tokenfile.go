package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"kplane/pkg/fileutil"
)

// TokensFileName is the token file's name inside the data dir.
const TokensFileName = "tokens.csv"

// tokenBytes is the amount of randomness in a generated token: 256 bits,
// written as 64 hex characters.
const tokenBytes = 32

// tokenRecord is one line of the token file.
type tokenRecord struct {
	token string
	uid   string
	user  User
}

// TokenFile is a static token file (upstream's --token-auth-file format)
// held in memory for authentication and written back when a user is added.
//
// Each line is `token,user,uid[,"group1,group2"]`, read as CSV: at least three
// columns, groups optional and comma-separated inside one quoted column.
// Several tokens may name the same user. A TokenFile is safe for concurrent
// use; Authenticate takes only a read lock.
type TokenFile struct {
	path string

	mu sync.RWMutex
	// records are the lines in file order; the file is rewritten from them.
	records []tokenRecord
	// byDigest maps the SHA-256 of a token to its index in records. Looking
	// up by digest rather than by the token itself means the time a lookup
	// takes depends on a hash the caller cannot steer, not on how many
	// leading characters of a guess were right.
	byDigest map[[sha256.Size]byte]int
	// byUser maps a user name to the index of its first record.
	byUser map[string]int
}

// EnsureTokens opens dir/tokens.csv, creating it (and dir) at first start
// with a random token for every BuiltinUsers identity. An existing file is
// reused as it is, except that built-in identities missing from it are
// added, so a file written by an older kplane keeps working.
func EnsureTokens(dir string) (*TokenFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create token dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, TokensFileName)
	tf, err := loadOrCreate(path)
	if err != nil {
		return nil, err
	}
	for _, u := range BuiltinUsers() {
		if _, err := tf.EnsureUser(u); err != nil {
			return nil, err
		}
	}
	return tf, nil
}

// loadOrCreate reads path, or creates it with fresh tokens for the built-in
// users. Creation links a finished temporary file into place, which fails if
// another process created path meanwhile; then that process's file is read,
// so two first starts on one data dir still agree on the tokens.
func loadOrCreate(path string) (*TokenFile, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		return parseTokenFile(path, data)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read token file: %w", err)
	}

	tf := newTokenFile(path)
	for _, u := range BuiltinUsers() {
		token, err := newToken()
		if err != nil {
			return nil, err
		}
		tf.add(tokenRecord{token: token, uid: u.Name, user: u})
	}
	data, err = tf.encode()
	if err != nil {
		return nil, err
	}
	tmp, err := fileutil.WriteTemp(path, data, 0o600)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return loadOrCreate(path)
		}
		return nil, fmt.Errorf("create token file %s: %w", path, err)
	}
	slog.Debug("created token file", "component", "auth", "path", path, "users", len(tf.records))
	return tf, nil
}

func newTokenFile(path string) *TokenFile {
	return &TokenFile{
		path:     path,
		byDigest: map[[sha256.Size]byte]int{},
		byUser:   map[string]int{},
	}
}

// parseTokenFile reads the upstream format with upstream's rules: fewer than
// three columns is an error, an empty token is skipped, and a repeated token
// belongs to its last line.
func parseTokenFile(path string, data []byte) (*TokenFile, error) {
	tf := newTokenFile(path)
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	for line := 1; ; line++ {
		fields, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse token file %s: %w", path, err)
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("token file %s, record %d: must have at least 3 columns (token, user name, user uid), found %d", path, line, len(fields))
		}
		rec := tokenRecord{token: fields[0], uid: fields[2], user: User{Name: fields[1]}}
		if rec.token == "" {
			slog.Warn("skipping empty token in token file", "component", "auth", "path", path, "record", line)
			continue
		}
		if len(fields) >= 4 {
			rec.user.Groups = splitGroups(fields[3])
		}
		if _, dup := tf.byDigest[sha256.Sum256([]byte(rec.token))]; dup {
			slog.Warn("duplicate token in token file; the later record wins", "component", "auth", "path", path, "record", line)
		}
		tf.add(rec)
	}
	return tf, nil
}

func splitGroups(column string) []string {
	var groups []string
	for _, g := range strings.Split(column, ",") {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	return groups
}

// add appends rec and indexes it. The caller holds mu (or owns tf alone).
func (tf *TokenFile) add(rec tokenRecord) {
	tf.records = append(tf.records, rec)
	i := len(tf.records) - 1
	tf.byDigest[sha256.Sum256([]byte(rec.token))] = i
	if _, ok := tf.byUser[rec.user.Name]; !ok {
		tf.byUser[rec.user.Name] = i
	}
}

// encode renders the records in the upstream format.
func (tf *TokenFile) encode() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, rec := range tf.records {
		fields := []string{rec.token, rec.user.Name, rec.uid}
		if len(rec.user.Groups) > 0 {
			fields = append(fields, strings.Join(rec.user.Groups, ","))
		}
		if err := w.Write(fields); err != nil {
			return nil, fmt.Errorf("encode token file: %w", err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("encode token file: %w", err)
	}
	return buf.Bytes(), nil
}

// Path is the token file's location on disk.
func (tf *TokenFile) Path() string { return tf.path }

// TokenFor returns a token of the named user, if the file has one.
// Components use it to find the credential they should present.
func (tf *TokenFile) TokenFor(userName string) (string, bool) {
	tf.mu.RLock()
	defer tf.mu.RUnlock()
	i, ok := tf.byUser[userName]
	if !ok {
		return "", false
	}
	return tf.records[i].token, true
}

// EnsureUser returns the token of user.Name, first adding a line with a new
// random token (and user.Groups) to the file if the user has none. It is how
// a node gets its identity: EnsureUser(NodeUser("node-1")). An existing
// user's groups are left as the file has them.
func (tf *TokenFile) EnsureUser(user User) (string, error) {
	if user.Name == "" {
		return "", errors.New("ensure token: user name is empty")
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if i, ok := tf.byUser[user.Name]; ok {
		return tf.records[i].token, nil
	}
	token, err := newToken()
	if err != nil {
		return "", err
	}
	user.Groups = slices.Clone(user.Groups)
	// The uid column is free-form upstream; the user name is unique enough
	// for a learning cluster and reads well in the file.
	tf.add(tokenRecord{token: token, uid: user.Name, user: user})

	data, err := tf.encode()
	if err == nil {
		err = fileutil.WriteAtomic(tf.path, data, 0o600)
	}
	if err != nil {
		// Forget the new record so memory keeps matching the file.
		last := len(tf.records) - 1
		delete(tf.byDigest, sha256.Sum256([]byte(tf.records[last].token)))
		delete(tf.byUser, user.Name)
		tf.records = tf.records[:last]
		return "", fmt.Errorf("add token for %s: %w", user.Name, err)
	}
	slog.Debug("added token", "component", "auth", "user", user.Name, "path", tf.path)
	return token, nil
}

// SetGroups makes the file list userName with exactly groups, keeping its
// token; it reports whether the file changed. It is for identities whose
// groups kplane itself narrowed since an older data dir was written (the
// simulated network was once in system:masters); EnsureUser leaves an
// existing user's groups alone. A user the file lacks is an error.
func (tf *TokenFile) SetGroups(userName string, groups []string) (bool, error) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	i, ok := tf.byUser[userName]
	if !ok {
		return false, fmt.Errorf("set groups: no token for %s", userName)
	}
	old := tf.records[i].user.Groups
	if slices.Equal(old, groups) || (len(old) == 0 && len(groups) == 0) {
		return false, nil
	}
	tf.records[i].user.Groups = slices.Clone(groups)
	data, err := tf.encode()
	if err == nil {
		err = fileutil.WriteAtomic(tf.path, data, 0o600)
	}
	if err != nil {
		tf.records[i].user.Groups = old
		return false, fmt.Errorf("set groups of %s: %w", userName, err)
	}
	slog.Debug("changed groups", "component", "auth", "user", userName, "groups", groups, "path", tf.path)
	return true, nil
}

// Authenticate returns the user a bearer token belongs to, with the groups
// the file gives it; system:authenticated, which every user with valid
// credentials is in, is the Chain's to add (it is not written in the file).
func (tf *TokenFile) Authenticate(token string) (User, bool) {
	if token == "" {
		return User{}, false
	}
	tf.mu.RLock()
	i, ok := tf.byDigest[sha256.Sum256([]byte(token))]
	var rec tokenRecord
	if ok {
		rec = tf.records[i]
	}
	tf.mu.RUnlock()
	// The digest matched; comparing the tokens themselves, in constant
	// time, makes the answer not rest on SHA-256 alone.
	if !ok || subtle.ConstantTimeCompare([]byte(rec.token), []byte(token)) != 1 {
		return User{}, false
	}
	return User{Name: rec.user.Name, Groups: slices.Clone(rec.user.Groups)}, true
}

// newToken returns 256 random bits as 64 hex characters.
func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
