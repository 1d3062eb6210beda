-- 0046_create_publication_for_logi undone: the frozen state before it

DROP FUNCTION ledger.create_publication(text);
