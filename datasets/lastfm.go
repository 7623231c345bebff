package datasets

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
	"golang.org/x/text/encoding/charmap"
)

// LastFMFolder is the folder of hetrec2011-lastfm-2k under a data
// directory.
const LastFMFolder = "hetrec-lastfm-2k"

// lastFMCounts are the published row counts of the three files (the
// dataset's readme.txt: 17,632 artists, 92,834 user-artist relations,
// 25,434 user-friend relations); tests shrink them for fixtures.
var lastFMCounts = struct{ artists, listens, friends int }{17632, 92834, 25434}

// LoadLastFM loads hetrec2011-lastfm-2k (Cantador, Brusilovsky and Kuflik,
// "2nd Workshop on Information Heterogeneity and Fusion in Recommender
// Systems (HetRec 2011)", RecSys 2011; data from Last.fm) from
// <dir>/hetrec-lastfm-2k/ or, when dir itself holds the files, from dir
// ("" means DataDir("")): artists.dat (TAB-separated "id name url
// pictureURL", UTF-8; a line that is not valid UTF-8 is decoded as
// Latin-1), user_artists.dat ("userID artistID weight": listening counts)
// and user_friends.dat ("userID friendID", each friendship in both
// directions), each with its header line.
//
// It returns a RecDataset of 1,892 users and 17,632 artists: relations
// ("user", "listens", "artist") and ("artist", "rev-listens", "user") with
// edge data "weight" (float32 listening counts), and ("user", "friends",
// "user") (25,434 edges, as in the file); users are the ids of
// user_artists.dat, artists those declared in artists.dat, both in
// ascending id order. The split holds out 10% validation and 10% test
// pairs per user (seed 0; see RecDataset). tags.dat and
// user_taggedartists*.dat are not read. Nothing is downloaded.
//
// Errors wrap ErrFormat and name the file and line: a wrong header, a
// line without the file's column count or with a non-integer id or weight,
// a last line without its line ending (a cut file), an artist or friend id
// not declared, a duplicate artist id or user-artist pair, a row count
// other than published (a truncated file is an error). A missing file
// wraps ErrMissing.
func LoadLastFM(dir string) (*RecDataset, error) {
	if dir == "" {
		dir = DataDir("")
	}
	base := filepath.Join(dir, LastFMFolder)
	if _, err := os.Stat(filepath.Join(dir, "user_artists.dat")); err == nil {
		base = dir
	}
	// artists.dat: declared artist ids and names.
	artistPath := filepath.Join(base, "artists.dat")
	var artistIDs []int64
	var names []string
	err := readTable(artistPath, "id\tname\turl\tpictureURL", 4, '\t', lastFMCounts.artists, func(f *dataFile, cols [][]byte) error {
		id, ok := parseID(cols[0])
		if !ok {
			return f.errorf("artist id %q is not a non-negative integer", clip(cols[0]))
		}
		artistIDs = append(artistIDs, id)
		names = append(names, decodeText(cols[1]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := make([]int, len(artistIDs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return artistIDs[order[a]] < artistIDs[order[b]] })
	artistLocal := make(map[int64]int64, len(artistIDs))
	sortedIDs, sortedNames := make([]int64, len(order)), make([]string, len(order))
	for k, i := range order {
		if k > 0 && artistIDs[i] == sortedIDs[k-1] {
			return nil, lineError(artistPath, i+2, "artist id %d is declared twice", artistIDs[i])
		}
		sortedIDs[k], sortedNames[k] = artistIDs[i], names[i]
		artistLocal[artistIDs[i]] = int64(k)
	}

	// user_artists.dat: the interactions.
	uaPath := filepath.Join(base, "user_artists.dat")
	var fileUsers, items []int64
	var weights []float32
	err = readTable(uaPath, "userID\tartistID\tweight", 3, '\t', lastFMCounts.listens, func(f *dataFile, cols [][]byte) error {
		u, ok1 := parseID(cols[0])
		a, ok2 := parseID(cols[1])
		w, ok3 := parseID(cols[2])
		if !ok1 || !ok2 || !ok3 {
			return f.errorf("userID, artistID and weight must be non-negative integers, got %q", clip(bytes.Join(cols, []byte{'\t'})))
		}
		ai, ok := artistLocal[a]
		if !ok {
			return f.errorf("artist id %d is not declared in %s", a, artistPath)
		}
		fileUsers = append(fileUsers, u)
		items = append(items, ai)
		weights = append(weights, float32(w))
		return nil
	})
	if err != nil {
		return nil, err
	}
	userIDs := append([]int64(nil), fileUsers...)
	sort.Slice(userIDs, func(a, b int) bool { return userIDs[a] < userIDs[b] })
	userIDs = compactSorted(userIDs)
	userLocal := make(map[int64]int64, len(userIDs))
	for i, u := range userIDs {
		userLocal[u] = int64(i)
	}
	users := make([]int64, len(fileUsers))
	seen := make(map[int64]struct{}, len(users))
	for i, u := range fileUsers {
		users[i] = userLocal[u]
		key := users[i]*int64(len(sortedIDs)) + items[i]
		if _, dup := seen[key]; dup {
			return nil, lineError(uaPath, i+2, "user %d and artist %d appear twice", u, sortedIDs[items[i]])
		}
		seen[key] = struct{}{}
	}

	// user_friends.dat: the social graph.
	ufPath := filepath.Join(base, "user_friends.dat")
	var fs, fd []int64
	err = readTable(ufPath, "userID\tfriendID", 2, '\t', lastFMCounts.friends, func(f *dataFile, cols [][]byte) error {
		var ids [2]int64
		for k := range ids {
			id, ok := parseID(cols[k])
			if !ok {
				return f.errorf("userID and friendID must be non-negative integers, got %q", clip(bytes.Join(cols, []byte{'\t'})))
			}
			local, ok := userLocal[id]
			if !ok {
				return f.errorf("user id %d has no listening record in %s", id, uaPath)
			}
			ids[k] = local
		}
		fs, fd = append(fs, ids[0]), append(fd, ids[1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	d := &RecDataset{Name: "Last.fm", UserType: "user", ItemType: "artist", EType: "listens",
		NumUsers: len(userIDs), NumItems: len(sortedIDs), ValFrac: 0.1, TestFrac: 0.1, Seed: 0,
		UserIDs: userIDs, ItemIDs: sortedIDs, ItemNames: sortedNames}
	return newRecDataset(d, users, items, map[string]*tensor.Tensor{"weight": tensor.FromFloat32(weights)},
		map[graph.CanonicalEType]graph.EdgeList{{Src: "user", EType: "friends", Dst: "user"}: {Src: fs, Dst: fd}})
}

// compactSorted drops repeats from a sorted slice.
func compactSorted(s []int64) []int64 {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// decodeText returns b as a UTF-8 string, decoding it as Latin-1
// (ISO-8859-1) when it is not valid UTF-8.
func decodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	s, err := charmap.ISO8859_1.NewDecoder().Bytes(b)
	if err != nil { // ISO-8859-1 maps every byte; kept for safety
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(s)
}

// readTable reads a delimited text file whose first line is header
// (exact; "" means no header) and whose every other non-empty line has
// exactly cols fields separated by sep, calling row for each; want >= 0 is
// the number of data rows the file must have. Errors wrap ErrFormat and
// name the file and line.
func readTable(path, header string, cols int, sep byte, want int, row func(f *dataFile, cols [][]byte) error) error {
	f, err := openData(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var fields [][]byte
	rows := 0
	for {
		line, err := f.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if f.atEOFWithoutNewline() {
			return f.errorf("the last line %q has no line ending: the file is truncated", clip(line))
		}
		if f.line == 1 && header != "" {
			if string(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))) != header {
				return f.errorf("the header is %q, want %q", clip(line), strings.ReplaceAll(header, "\t", `\t`))
			}
			continue
		}
		if len(line) == 0 {
			continue
		}
		fields = fields[:0]
		for rest := line; ; {
			i := bytes.IndexByte(rest, sep)
			if i < 0 {
				fields = append(fields, rest)
				break
			}
			fields = append(fields, rest[:i])
			rest = rest[i+1:]
		}
		if len(fields) != cols {
			return f.errorf("%d fields separated by %q, want %d: %q", len(fields), string(sep), cols, clip(line))
		}
		if err := row(f, fields); err != nil {
			return err
		}
		rows++
	}
	if f.line == 0 {
		return lineError(path, 0, "the file is empty")
	}
	if want >= 0 && rows != want {
		return lineError(path, f.line, "%d rows, the published file has %d: the file is truncated or not the published one", rows, want)
	}
	return nil
}
