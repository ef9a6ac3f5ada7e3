create table if not exists stock (sku varchar(64) primary key, remaining int not null);
create table if not exists orders (id bigint auto_increment primary key, sku varchar(64) not null, buyer varchar(64) not null);
