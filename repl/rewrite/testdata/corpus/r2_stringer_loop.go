package main

import (
	"fmt"
	"strings"
)

type Suit int

const (
	Spades Suit = iota
	Hearts
	Diamonds
	Clubs
)

func (s Suit) String() string { return [...]string{"♠", "♥", "♦", "♣"}[s] }

type Card struct {
	Rank int
	Suit Suit
}

func (c Card) String() string { return fmt.Sprintf("%d%v", c.Rank, c.Suit) }

func main() {
	hand := []Card{{10, Hearts}, {3, Spades}, {12, Clubs}}
	var parts []string
	for _, c := range hand {
		parts = append(parts, c.String())
	}
	fmt.Println(strings.Join(parts, " "))
	for _, c := range hand {
		fmt.Println(c)
	}
}
