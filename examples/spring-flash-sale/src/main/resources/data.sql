merge into stock (sku, remaining) key (sku) values ('phone-x', 10);
