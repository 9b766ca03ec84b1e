package whatever
