package dev.dlock.examples.flashsale;

import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * 200 "sold", 409 "sold out". A purchase whose lock stayed busy for its whole wait throws
 * LockBusyException, which the starter answers with 409 and a problem body naming the lock: no
 * exception handler here.
 */
@RestController
public class PurchaseController {
    private final Shop shop;
    private final Stock stock;

    public PurchaseController(Shop shop, Stock stock) {
        this.shop = shop;
        this.stock = stock;
    }

    @PostMapping("/phones/{sku}/purchase")
    public ResponseEntity<String> buy(@PathVariable String sku, @RequestParam String buyer) {
        return answer(shop.buy(sku, buyer));
    }

    @PostMapping("/unlocked/phones/{sku}/purchase")
    public ResponseEntity<String> buyWithoutLock(@PathVariable String sku, @RequestParam String buyer) {
        return answer(shop.buyWithoutLock(sku, buyer));
    }

    @GetMapping("/phones/{sku}")
    public Map<String, Integer> phone(@PathVariable String sku) {
        return Map.of("remaining", stock.remaining(sku), "sold", stock.sold(sku));
    }

    @PutMapping("/phones/{sku}")
    public Map<String, Integer> restock(@PathVariable String sku, @RequestParam int units) {
        stock.restock(sku, units);
        return phone(sku);
    }

    private static ResponseEntity<String> answer(boolean sold) {
        return sold ? ResponseEntity.ok("sold") : ResponseEntity.status(HttpStatus.CONFLICT).body("sold out");
    }
}
