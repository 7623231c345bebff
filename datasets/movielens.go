package datasets

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/gnnrepl/gnnrepl/graph"
	"github.com/gnnrepl/gnnrepl/tensor"
	"golang.org/x/text/encoding/charmap"
)

// MovieLens100KFolder is the folder of MovieLens-100K under a data
// directory (the folder of GroupLens' ml-100k.zip).
const MovieLens100KFolder = "ml-100k"

// LoadMovieLens100K loads MovieLens-100K (Harper and Konstan, "The
// MovieLens Datasets: History and Context", ACM TiiS 2015) from
// <dir>/ml-100k/ or, when dir itself holds the files, from dir ("" means
// DataDir("")): u.item (pipe-separated, 24 fields "movie id | title |
// release date | video release date | IMDb URL | 19 genre flags",
// ISO-8859-1 encoded: titles are decoded to UTF-8) and u.data
// (TAB-separated "user id, item id, rating, timestamp"). When u.info is
// there ("943 users", "1682 items", "100000 ratings") the counts are
// checked against it. The data's terms forbid redistribution, so nothing
// is shipped or downloaded: put GroupLens' files there yourself.
//
// It returns a RecDataset of users (the ids of u.data) and movies (those
// declared in u.item), ascending ids: relations ("user", "rates",
// "movie") and ("movie", "rev-rates", "user") with edge data "rating"
// (float32, 1..5) and "timestamp" (int64, unix seconds), and node data
// "genre" (N_movie, 19) float32 0/1 flags on "movie". The split holds out
// 10% validation and 10% test ratings per user (seed 0; see RecDataset).
//
// Errors wrap ErrFormat and name the file and line: a line without its
// field count, a non-integer id, rating or timestamp, a rating outside
// 1..5, a genre flag other than 0 or 1, a movie id used in u.data but not
// declared in u.item or declared twice, a duplicate (user, movie) rating,
// a last line without its line ending (a cut file), counts other than
// u.info's. A missing u.data or u.item wraps ErrMissing.
func LoadMovieLens100K(dir string) (*RecDataset, error) {
	if dir == "" {
		dir = DataDir("")
	}
	base := filepath.Join(dir, MovieLens100KFolder)
	if _, err := os.Stat(filepath.Join(dir, "u.data")); err == nil {
		base = dir
	}
	info, err := readMovieLensInfo(filepath.Join(base, "u.info"))
	if err != nil {
		return nil, err
	}

	itemPath := filepath.Join(base, "u.item")
	itemLocal := map[int64]int64{}
	var itemIDs []int64
	var titles []string
	var genres []float32
	latin1 := charmap.ISO8859_1.NewDecoder()
	err = readTable(itemPath, "", 24, '|', info["items"], func(f *dataFile, cols [][]byte) error {
		id, ok := parseID(cols[0])
		if !ok {
			return f.errorf("movie id %q is not a non-negative integer", clip(cols[0]))
		}
		if _, dup := itemLocal[id]; dup {
			return f.errorf("movie id %d is declared twice", id)
		}
		title, err := latin1.Bytes(cols[1])
		if err != nil {
			return f.errorf("title %q is not ISO-8859-1: %v", clip(cols[1]), err)
		}
		for k, g := range cols[5:] {
			if len(g) != 1 || (g[0] != '0' && g[0] != '1') {
				return f.errorf("genre flag %d is %q, want 0 or 1", k, clip(g))
			}
			genres = append(genres, float32(g[0]-'0'))
		}
		itemLocal[id] = int64(len(itemIDs))
		itemIDs = append(itemIDs, id)
		titles = append(titles, string(title))
		return nil
	})
	if err != nil {
		return nil, err
	}

	dataPath := filepath.Join(base, "u.data")
	var fileUsers, items, stamps []int64
	var ratings []float32
	err = readTable(dataPath, "", 4, '\t', info["ratings"], func(f *dataFile, cols [][]byte) error {
		var v [4]int64
		for k, c := range cols {
			x, ok := parseID(c)
			if !ok {
				return f.errorf("field %d (%s) is %q, want a non-negative integer", k+1, [...]string{"user id", "item id", "rating", "timestamp"}[k], clip(c))
			}
			v[k] = x
		}
		if v[2] < 1 || v[2] > 5 {
			return f.errorf("rating %d is outside 1..5", v[2])
		}
		it, ok := itemLocal[v[1]]
		if !ok {
			return f.errorf("item id %d is not declared in %s", v[1], itemPath)
		}
		fileUsers = append(fileUsers, v[0])
		items = append(items, it)
		ratings = append(ratings, float32(v[2]))
		stamps = append(stamps, v[3])
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Movies are numbered in ascending id order.
	order := make([]int64, len(itemIDs))
	copy(order, itemIDs)
	sortInt64s(order)
	remap := make([]int64, len(itemIDs)) // file-order local id -> sorted local id
	sortedTitles := make([]string, len(itemIDs))
	sortedGenres := make([]float32, len(genres))
	pos := make(map[int64]int64, len(order))
	for i, id := range order {
		pos[id] = int64(i)
	}
	for i, id := range itemIDs {
		j := pos[id]
		remap[i] = j
		sortedTitles[j] = titles[i]
		copy(sortedGenres[j*19:(j+1)*19], genres[i*19:(i+1)*19])
	}
	for i := range items {
		items[i] = remap[items[i]]
	}
	userIDs := append([]int64(nil), fileUsers...)
	sortInt64s(userIDs)
	userIDs = compactSorted(userIDs)
	if n, ok := info["users"]; ok && n >= 0 && n != len(userIDs) {
		return nil, lineError(dataPath, 0, "%d users, u.info declares %d: the file is truncated or not the published one", len(userIDs), n)
	}
	userLocal := make(map[int64]int64, len(userIDs))
	for i, u := range userIDs {
		userLocal[u] = int64(i)
	}
	users := make([]int64, len(fileUsers))
	seen := make(map[int64]struct{}, len(users))
	for i, u := range fileUsers {
		users[i] = userLocal[u]
		key := users[i]*int64(len(order)) + items[i]
		if _, dup := seen[key]; dup {
			return nil, lineError(dataPath, i+1, "user %d rated movie %d twice", u, order[items[i]])
		}
		seen[key] = struct{}{}
	}
	d := &RecDataset{Name: "MovieLens-100K", UserType: "user", ItemType: "movie", EType: "rates",
		NumUsers: len(userIDs), NumItems: len(order), ValFrac: 0.1, TestFrac: 0.1, Seed: 0,
		UserIDs: userIDs, ItemIDs: order, ItemNames: sortedTitles}
	d, err = newRecDataset(d, users, items, map[string]*tensor.Tensor{
		"rating": tensor.FromFloat32(ratings), "timestamp": tensor.FromInt64(stamps)}, nil)
	if err != nil {
		return nil, err
	}
	for _, g := range []*graph.Graph{d.Graph, d.TrainGraph} {
		if err := g.SetNDataOf("movie", "genre", tensor.FromFloat32(sortedGenres, len(order), 19)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

var movieLensInfoLine = regexp.MustCompile(`^(\d+) (users|items|ratings)$`)

// readMovieLensInfo reads u.info's counts; a missing file gives -1 for
// each (not checked).
func readMovieLensInfo(path string) (map[string]int, error) {
	out := map[string]int{"users": -1, "items": -1, "ratings": -1}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for i, line := range bytes.Split(bytes.TrimRight(b, "\r\n"), []byte{'\n'}) {
		m := movieLensInfoLine.FindSubmatch(bytes.TrimRight(line, "\r"))
		if m == nil {
			return nil, lineError(path, i+1, "want \"<count> users|items|ratings\", got %q", clip(line))
		}
		n, _ := strconv.Atoi(string(m[1]))
		out[string(m[2])] = n
	}
	return out, nil
}

func sortInt64s(s []int64) { sort.Slice(s, func(a, b int) bool { return s[a] < s[b] }) }
