export interface Item {
  sku: string;
  name: string;
  quantity: number;
  unitPrice: number;
}

// TODO: support discounts per customer group.
export function totalValue(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0);
}

export function lowStock(items: Item[], threshold = 5): Item[] {
  // TODO: the threshold should come from settings.
  return items.filter((item) => item.quantity < threshold);
}
