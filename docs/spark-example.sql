-- orders and their totals per customer, maintained incrementally
CREATE NAMESPACE IF NOT EXISTS lake.shop;
DROP TABLE IF EXISTS lake.shop.orders;
DROP TABLE IF EXISTS lake.shop.totals;
CREATE TABLE lake.shop.orders (id INT, customer STRING, amount DECIMAL(10,2)) USING iceberg;
INSERT INTO lake.shop.orders VALUES (1, 'ann', 10.00), (2, 'bob', 20.00), (3, 'ann', 5.50);
CREATE MATERIALIZED VIEW lake.shop.totals AS
  SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM lake.shop.orders GROUP BY customer;
SELECT * FROM totals ORDER BY customer;
INSERT INTO lake.shop.orders VALUES (4, 'cid', 7.25);
UPDATE lake.shop.orders SET amount = 6.00 WHERE id = 3;
DELETE FROM lake.shop.orders WHERE customer = 'bob';
EXPLAIN REFRESH lake.shop.totals;
REFRESH MATERIALIZED VIEW lake.shop.totals;
SELECT * FROM totals ORDER BY customer;
SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM lake.shop.orders GROUP BY customer ORDER BY customer;
