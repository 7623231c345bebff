package main

func main() {
	println("to stderr", 1, true)
	print("no newline", 2, "\n")
}
