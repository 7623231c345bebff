package main

import "fmt"

func main() {
	grid := make([][]int, 3)
	for i := range grid {
		grid[i] = make([]int, 3)
		for j := range grid[i] {
			grid[i][j] = i * j
		}
	}
	fmt.Println(grid)
}
