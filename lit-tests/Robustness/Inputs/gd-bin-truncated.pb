
	
aNo