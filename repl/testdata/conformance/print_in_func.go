package main

func report(n int) {
	println("n =", n)
}

func main() {
	report(3)
	report(-4)
}
