import { main } from './core-budget.js'

main()
