package paygate

// CardsService is the cards resource group of the API.
type CardsService service
